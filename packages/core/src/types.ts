/**
 * The client's mutually recursive public types in one module: options, requests, plugins and the client as
 * plugins receive it. Every other module imports them from here, so no module needs `client.ts` for a type
 * and the imports stay free of cycles.
 */
import type { DeadlineInit } from './deadline.js';
import type { SluiceEventListener, EventSink } from './events.js';
import type { KnownSecrets } from './known-secrets.js';
import type {
  BulkheadOptions, CircuitBreakerOptions, PauseOnRetryAfterOptions, RateLimiter, RateLimitOptions, ResolvedResilience, RetryBudgetOptions,
} from './resilience/options.js';
import type { CircuitState } from './resilience/circuit-breaker.js';
import type { SluiceResponse } from './response.js';
import type { RetryOptions } from './retry.js';
import type { ProxyOption } from './transport/proxy.js';
import type { TLSOptions } from './transport/tls.js';
import type { BodyInit, Transport } from './transport/types.js';
import type { QueryInit } from './url/query.js';
import type { ResolvedURL, URLNormalization } from './url/resolve.js';

/**
 * Headers as a caller may give them: a `Headers` instance, `[name, value]` pairs (or any iterable of
 * them, such as a `Map`), or a record whose `undefined` values are skipped.
 */
export type HeadersInput = Headers | Iterable<readonly [string, string]> | Readonly<Record<string, string | undefined>>;


/**
 * One request (`client.request(init)`). Only `path` is usually needed; everything else has a default
 * from the client options.
 *
 * @example
 * ```ts
 * await client.request({ method: 'POST', path: 'orders', json: { item: 'x' }, idempotent: true })
 * ```
 */
export interface RequestOptions {
  /** HTTP method. Default `GET`. */
  method?: string | undefined;
  /** Path resolved against the base URL (SPEC 4.3), or an absolute URL. May carry a query string. */
  path?: string | undefined;
  /** Query parameters appended to the path's own (spaces as `%20`). */
  query?: QueryInit | undefined;
  /**
   * Headers for this request; they win over the client's. A record (`undefined` values are skipped), a
   * `Headers` instance or `[name, value]` pairs.
   */
  headers?: HeadersInput | undefined;
  /** Raw body. Strings and bytes can be retried; streams cannot. */
  body?: BodyInit | undefined;
  /** A value sent as JSON (sets `content-type: application/json` unless given). */
  json?: unknown;
  /** Cancels the whole request: attempts, retry waits and body reading. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms for this request, or false. */
  timeout?: number | false | undefined;
  /**
   * Total time for this request across attempts, waits and the body read: ms from now, an absolute
   * `Date`, or `false` to lift the client's. Past it: {@link DeadlineError}. A `signal` from
   * `AbortSignal.timeout()` acts as a deadline too.
   */
  deadline?: DeadlineInit | undefined;
  /** Retry settings for this request, merged over the client's; false disables. */
  retry?: Partial<RetryOptions> | false | undefined;
  /** Allow retrying a non-idempotent method (POST, PATCH) because the caller knows it is safe. */
  idempotent?: boolean | undefined;
  /** Override the client's `throwHttpErrors`. */
  throwHttpErrors?: boolean | undefined;
  /** Values plugins can read (`request.context`). */
  context?: Record<string, unknown> | undefined;
  /**
   * With a client `rateLimit`: reject with `RateLimitError` instead of waiting when no token is free
   * (overrides `rateLimit.failFast` for this request).
   */
  failFast?: boolean | undefined;
  /**
   * Most redirects followed for this request (GET, HEAD and OPTIONS), overriding the client's
   * `maxRedirects`. `0` returns a 3xx as it is, `Location` unread, so the caller decides where it leads.
   */
  maxRedirects?: number | undefined;
}

/** Options of the shortcut methods (`get`, `post`, ...): a request without method and path. */
export type ShortcutOptions = Omit<RequestOptions, 'method' | 'path'>;


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
  readonly credentialHeaders?: readonly string[] | undefined;
  /** Called once when the client is created. */
  setup?(client: PluginClient): void;
  /** Called before each send; may change `request.headers`. */
  onRequest?(request: PluginRequest, client: PluginClient): void | Promise<void>;
  /** Called with each final response; answer `'resend'` to send the request once more. */
  onResponse?(response: SluiceResponse, request: PluginRequest, client: PluginClient): PluginVerdict | Promise<PluginVerdict>;
  /** Called by `client.close()`: stop timers, release resources. */
  close?(): void | Promise<void>;
}

/**
 * Options of {@link createClient}. Every option is checked at construction; a bad one throws
 * {@link ConfigError} naming it.
 *
 * @example
 * ```ts
 * const client = createClient({
 *   baseURL: 'https://api.example.com/v1',
 *   timeout: 10_000,
 *   retry: { maxAttempts: 4, waitBase: 250 },
 *   headers: { accept: 'application/json' },
 * })
 * ```
 */
export interface ClientOptions {
  /** Base URL that request paths are resolved against (http or https, no credentials in it). */
  baseURL?: string | undefined;
  /** How paths join the base (SPEC 4.3). Default `URLNormalization.Auto`. */
  urlNormalization?: URLNormalization | undefined;
  /**
   * Per-attempt timeout in ms: the longest wait for response headers, and then the longest silence
   * between two body chunks. `false` disables it. Default 30000. See `deadline` for a total limit.
   */
  timeout?: number | false | undefined;
  /**
   * Total time in ms for each request: every attempt, retry wait, queue wait, redirect and the body read
   * together. Past it the request fails with {@link DeadlineError} and no retry starts whose wait would pass
   * it. A request's own `deadline` wins. Default `false` (none).
   */
  deadline?: number | false | undefined;
  /** Retry settings merged over {@link DEFAULT_RETRY}; `false` disables retrying. */
  retry?: Partial<RetryOptions> | false | undefined;
  /** Headers sent with every request (a request's own headers win): a record, `Headers` or `[name, value]` pairs. */
  headers?: HeadersInput | undefined;
  /**
   * Header names (besides {@link CREDENTIAL_HEADERS}) that carry credentials: stripped on every redirect
   * that leaves the origin, sent from the default `headers` only to the base URL's origin, and shown
   * redacted in `client.options`.
   */
  sensitiveHeaders?: readonly string[] | undefined;
  /** Plugins, in the order their hooks run. */
  plugins?: readonly Plugin[] | undefined;
  /** The transport; default a new {@link UndiciTransport} owned by this client (with `proxy` and `tls`). */
  transport?: Transport | undefined;
  /**
   * Proxy of the default transport: `'env'` (default) honours `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY`;
   * a URL (credentials allowed, never shown); `false` for direct connections. See NETWORK.md.
   */
  proxy?: ProxyOption | undefined;
  /** TLS settings of the default transport: custom CAs, client certificate (mTLS), SNI, lowest version. See NETWORK.md. */
  tls?: TLSOptions | undefined;
  /** Most redirects followed for GET, HEAD and OPTIONS. `0` returns 3xx responses as they are. Default 10. */
  maxRedirects?: number | undefined;
  /** Throw {@link HttpError} for statuses 400 and above. Default true. */
  throwHttpErrors?: boolean | undefined;
  /** Largest body `json()`, `text()` and `bytes()` will buffer, in bytes. Default 64 MiB. */
  maxResponseBytes?: number | undefined;
  /**
   * Client-side token-bucket rate limit over every attempt, or a {@link RateLimiter} of your own (such as
   * a budget shared between processes). Default off. See RESILIENCE.md.
   */
  rateLimit?: RateLimitOptions | RateLimiter | false | undefined;
  /** Per-origin circuit breaker; `true` uses the defaults. Default off. See RESILIENCE.md. */
  circuitBreaker?: CircuitBreakerOptions | boolean | undefined;
  /** Client-wide cap on retries (20 % of recent requests + 10/s). Default on; `false` disables. */
  retryBudget?: RetryBudgetOptions | boolean | undefined;
  /** Cap on concurrent requests, with a bounded wait queue. Default off. */
  bulkhead?: BulkheadOptions | false | undefined;
  /** Pause an origin for every caller after a 429/503 with `Retry-After` (at most 60 s). Default on. */
  pauseOnRetryAfter?: PauseOnRetryAfterOptions | boolean | undefined;
  /** Receives the client's events (see {@link SluiceEventMap}); more listeners with `client.events.on()`. */
  onEvent?: SluiceEventListener | undefined;
}

/** Options after validation and defaults. */
export interface ResolvedOptions {
  baseURL: string | undefined;
  urlNormalization: URLNormalization;
  timeout: number | false;
  deadline: number | false;
  retry: RetryOptions;
  headers: Record<string, string>;
  /** Every credential header name, lower-case: {@link CREDENTIAL_HEADERS} plus `sensitiveHeaders`. */
  sensitiveHeaders: readonly string[];
  plugins: readonly Plugin[];
  maxRedirects: number;
  throwHttpErrors: boolean;
  maxResponseBytes: number;
  /** Rate limit, breaker, retry budget, bulkhead and pause settings; `undefined` entries are off. */
  resilience: ResolvedResilience;
  onEvent: SluiceEventListener | undefined;
}


/**
 * The client as plugin hooks receive it: the public members of {@link Client} (which implements this
 * interface), declared here so that {@link Plugin} does not depend on the class.
 */
export interface PluginClient {
  /** Where the client's events go; plugins emit here too. See {@link Client.events}. */
  readonly events: EventSink;
  /** The secret values the client scrubs from errors and events; plugins add theirs. */
  readonly secrets: KnownSecrets;
  /** The client's transport; plugins reuse it to share proxy and TLS settings. */
  readonly transport: Transport;
  /** The validated options, credential headers redacted. */
  readonly options: Readonly<ResolvedOptions>;
  /** Origin of the base URL, or undefined without one. */
  readonly origin: string | undefined;
  /** See {@link Client.toJSON}. */
  toJSON(): Record<string, unknown>;
  /** See {@link Client.circuitState}. */
  circuitState(origin?: string | undefined): CircuitState | undefined;
  /** See {@link Client.resolve}. */
  resolve(path: string): ResolvedURL;
  /** See {@link Client.plugin}. */
  plugin<T extends Plugin = Plugin>(name: string): T | undefined;
  /** See {@link Client.request}. */
  request(init?: RequestOptions): Promise<SluiceResponse>;
  /** GET `path`. */
  get(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** HEAD `path`. */
  head(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** POST `path`. */
  post(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** PUT `path`. */
  put(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** PATCH `path`. */
  patch(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** DELETE `path`. */
  delete(path: string, init?: ShortcutOptions): Promise<SluiceResponse>;
  /** See {@link Client.getJSON}. */
  getJSON<T = unknown>(path: string, init?: ShortcutOptions): Promise<T>;
  /** See {@link Client.close}. */
  close(): Promise<void>;
}
