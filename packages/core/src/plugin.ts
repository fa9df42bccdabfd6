import type { SluiceResponse } from './response.js';
import type { BodyInit } from './transport/types.js';
import type { Client } from './client.js';

/** The request as plugins see it. `headers` (lower-case names) may be changed in `onRequest`. */
export interface PluginRequest {
  /** Unique in the process; the `requestId` of this request's events (`request.start`, `retry.scheduled`...). */
  readonly id: number;
  /** Upper-case method. */
  readonly method: string;
  /** Absolute URL the request goes to. */
  readonly url: string;
  /** `scheme://host[:port]` of {@link PluginRequest.url}. */
  readonly origin: string;
  /** Headers to send, lower-case names; set or delete entries to change them. */
  readonly headers: Record<string, string>;
  /** The body, when the request has one. */
  readonly body: BodyInit | undefined;
  /** The caller's signal: pass it to any request the plugin makes for this one. */
  readonly signal: AbortSignal | undefined;
  /** Per-request values shared between the caller and plugins (`request({ context })`). */
  readonly context: Record<string, unknown>;
  /** 0 for the first send, 1 after a plugin asked to resend. */
  readonly resends: number;
}

/** What `onResponse` may answer: `'resend'` sends the request once more (each plugin at most once). */
export type PluginVerdict = 'resend' | undefined | void;

/**
 * The one extension point of the client (OAuth and CSRF are plugins, not special cases). Hooks run in
 * the order the plugins were given. `onRequest` runs before every send (also before a resend), `onResponse`
 * sees every final response (after retries, before errors are thrown) and may ask for one resend, for
 * example after renewing a token on 401. Names in `credentialHeaders` are dropped when a redirect leaves
 * the origin, like `Authorization` and `Cookie` always are.
 *
 * @example
 * ```ts
 * const apiKey: Plugin = {
 *   name: 'api-key',
 *   credentialHeaders: ['x-api-key'],
 *   onRequest(req) { req.headers['x-api-key'] = process.env.API_KEY! },
 * }
 * createClient({ baseURL, plugins: [apiKey] })
 * ```
 */
export interface Plugin {
  /** Unique name; {@link Client.plugin} finds a plugin by it. */
  readonly name: string;
  /** Header names (lower-case) this plugin adds that are credentials. */
  readonly credentialHeaders?: readonly string[];
  /** Called once when the client is created. */
  setup?(client: Client): void;
  /** Called before each send; may change `request.headers`. */
  onRequest?(request: PluginRequest, client: Client): void | Promise<void>;
  /** Called with each final response; answer `'resend'` to send the request once more. */
  onResponse?(response: SluiceResponse, request: PluginRequest, client: Client): PluginVerdict | Promise<PluginVerdict>;
  /** Called by `client.close()`: stop timers, release resources. */
  close?(): void | Promise<void>;
}
