import { abortOr, AttemptLoop } from './attempt-loop.js';
import { requestEnded } from './attempt-events.js';
import { debugListener, debugWriter } from './debug-log.js';
import { abortErrorFor, checkDeadline, DeadlineError, startDeadline, type RequestDeadline } from './deadline.js';
import { toHttpError } from './error-body.js';
import { AbortError, ConfigError, HttpError, SluiceError } from './errors.js';
import { EventSink } from './events.js';
import { KnownSecrets, rememberCredentials } from './known-secrets.js';
import { checkHeaders, checkMaxRedirects, checkRetry, checkTimeout, proxyPassword, resolveOptions } from './options.js';
import { redactHeaders, REDACTED } from './redact.js';
import { checkRequestKeys, isReplayable, nextRequestId, type Attempt } from './request-options.js';
import type { SluiceResponse } from './response.js';
import { Bulkhead } from './resilience/bulkhead.js';
import type { CircuitState } from './resilience/circuit-breaker.js';
import type { Transport } from './transport/types.js';
import { UndiciTransport } from './transport/undici.js';
import { apiJoinOf, isPlainRelative, requestURL, type SplitBase } from './url/client-url.js';
import { splitBase, strategyFor, type ResolutionStrategy, type ResolvedURL } from './url/resolve.js';
import { toTarget } from './url/target.js';
import type { ClientOptions, Plugin, PluginClient, PluginRequest, RequestOptions, ResolvedOptions, ShortcutOptions } from './types.js';

export type { RequestOptions, ShortcutOptions } from './types.js';

const NO_OPTIONS: RequestOptions = Object.freeze({});
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/**
 * The core HTTP client. Create it with {@link createClient}; it resolves paths against the base URL,
 * applies default headers, runs plugins, retries, times out, follows safe redirects and turns failures
 * into typed errors. Reuse one client per API: it pools keep-alive connections. Call `close()` when done.
 *
 * @example
 * ```ts
 * const client = createClient({ baseURL: 'https://api.example.com/v1' })
 * const user = await client.getJSON<{ name: string }>('users/42')
 * await client.close()
 * ```
 */
export class Client implements PluginClient {
  private readonly config: ResolvedOptions;
  private shown: Readonly<ResolvedOptions> | undefined;
  /** Where the client's events go (the `onEvent` option is its first listener); plugins and OData emit here too. */
  readonly events: EventSink;
  /**
   * The secret values this client knows: its credential headers (a Basic header also as `user:password`
   * and password), and what plugins register (`client.secrets.add(value)`). They are scrubbed from every
   * error the client's requests reject with, every event and every error body it reads.
   */
  readonly secrets = new KnownSecrets();
  /** The transport requests go through; plugins (OAuth's token endpoint) reuse it to share proxy and TLS settings. */
  readonly transport: Transport;
  private readonly ownsTransport: boolean;
  private readonly strategy: ResolutionStrategy;
  private readonly base: SplitBase | undefined;
  private readonly baseOrigin: string | undefined;
  /**
   * With an API-mode base URL without query or fragment: the base as URL and as request target, each
   * ending in `/`, so a plain relative path resolves by concatenation (see {@link isPlainRelative}).
   */
  private readonly apiJoin: { url: string; path: string } | undefined;
  private readonly credentialHeaders: readonly string[];
  private closed = false;
  /** The default headers plus `accept: application/json` unless set: what getJSON starts from. */
  private readonly jsonHeaders: Readonly<Record<string, string>>;
  /** Whether the default headers carry credentials (only sent to the base URL's origin). */
  private readonly defaultCredentials: boolean;
  /** Retries, redirects, admission and the circuit breaker: the attempts of a request. */
  private readonly loop: AttemptLoop;
  private readonly bulkhead: Bulkhead | undefined;
  /** No plugin, bulkhead, rate limit or breaker: a request can go straight to the transport. */
  private readonly direct: boolean;

  /** Prefer {@link createClient}. */
  constructor(options: ClientOptions) {
    const resolved = resolveOptions(options);
    this.ownsTransport = options.transport === undefined;
    this.transport = options.transport ?? new UndiciTransport({ proxy: options.proxy, tls: options.tls });
    // Headers the transport always wants (accept-encoding) go under the caller's defaults, once, not per request.
    if (this.transport.defaultHeaders !== undefined) resolved.headers = { ...this.transport.defaultHeaders, ...resolved.headers };
    this.config = resolved;
    this.events = new EventSink(resolved.onEvent === undefined ? [] : [resolved.onEvent], this.secrets);
    const debug = debugWriter();
    if (debug !== undefined) this.events.on(debugListener(debug));
    if (this.transport.insecureTLS === true) this.events.emit('tls.insecure', { option: 'tls.insecureSkipVerify' });
    const { baseURL } = resolved;
    this.strategy = baseURL === undefined ? 'rfc3986' : strategyFor({ baseURL, urlNormalization: resolved.urlNormalization });
    this.base = baseURL === undefined ? undefined : splitBase(baseURL);
    this.baseOrigin = baseURL === undefined ? undefined : new URL(baseURL).origin;
    this.apiJoin = apiJoinOf(this.base, this.strategy, this.baseOrigin);
    this.jsonHeaders = { accept: 'application/json', ...resolved.headers };
    this.credentialHeaders = [
      ...resolved.sensitiveHeaders,
      ...resolved.plugins.flatMap((p) => (p.credentialHeaders ?? []).map((h) => h.toLowerCase())),
    ];
    this.defaultCredentials = this.credentialHeaders.some((name) => resolved.headers[name] !== undefined);
    for (const name of this.credentialHeaders) {
      const value = resolved.headers[name];
      if (value !== undefined) this.secrets.addCredential(value);
    }
    this.secrets.add(proxyPassword(options.proxy), typeof options.tls?.passphrase === 'string' ? options.tls.passphrase : undefined);
    this.loop = new AttemptLoop(this.transport, this.events, resolved, this.credentialHeaders, this.secrets);
    const { bulkhead } = resolved.resilience;
    this.bulkhead = bulkhead && new Bulkhead(bulkhead);
    this.direct = resolved.plugins.length === 0 && this.bulkhead === undefined && !this.loop.gated;
    for (const plugin of this.config.plugins) plugin.setup?.(this);
  }

  /** The validated options, defaults filled in; credential headers show as `[REDACTED]`. */
  get options(): Readonly<ResolvedOptions> {
    return (this.shown ??= Object.freeze({ ...this.config, headers: redactHeaders(this.config.headers, this.credentialHeaders) }));
  }

  /** What `JSON.stringify(client)` shows: the base URL and the redacted options, no credential. */
  toJSON(): Record<string, unknown> {
    const o = this.options;
    return {
      baseURL: o.baseURL, timeout: o.timeout, deadline: o.deadline, retry: o.retry, headers: o.headers,
      maxRedirects: o.maxRedirects, throwHttpErrors: o.throwHttpErrors, maxResponseBytes: o.maxResponseBytes,
      plugins: o.plugins.map((p) => p.name), secrets: this.secrets.size === 0 ? 0 : REDACTED,
    };
  }

  /** What `console.log(client)` and `util.inspect(client)` show: the same as {@link Client.toJSON}. */
  [INSPECT](depth: number, options: object, inspect: (value: unknown, options: object) => string): string {
    return `Client ${inspect(this.toJSON(), { ...options, depth: Math.max(depth, 2) })}`;
  }

  /**
   * State of the circuit breaker for `origin` (default: the base URL's origin), or undefined when the
   * client has no `circuitBreaker`. An open circuit whose `openDuration` has passed reports `half-open`.
   */
  circuitState(origin: string | undefined = this.baseOrigin): CircuitState | undefined {
    if (this.loop.breakers === undefined || origin === undefined) return undefined;
    return this.loop.breakers.state(origin);
  }

  /** Origin (`scheme://host[:port]`) of the base URL, or undefined without one. */
  get origin(): string | undefined {
    return this.baseOrigin;
  }

  /** Resolves `path` as a request would, without sending anything (SPEC 4.1 debug aid). */
  resolve(path: string): ResolvedURL {
    return { url: requestURL(this.base, this.strategy, this.config.baseURL, path, undefined), strategy: this.strategy };
  }

  /** Finds a plugin by name, for helpers such as `forceRefresh(client)`. */
  plugin<T extends Plugin = Plugin>(name: string): T | undefined {
    return this.config.plugins.find((p) => p.name === name) as T | undefined;
  }

  /**
   * Sends a request and resolves with the response once its headers arrive; the body is read from the
   * response. Rejects with {@link HttpError} for status >= 400 (unless `throwHttpErrors` is false),
   * {@link TimeoutError} (a {@link DeadlineError} past the deadline), `AbortError`, {@link NetworkError} or
   * {@link ConfigError} (also for an option key it does not know, naming the nearest one).
   */
  request(init: RequestOptions = NO_OPTIONS): Promise<SluiceResponse> {
    return this.start(init, init.method === undefined ? 'GET' : init.method, init.path ?? '', false);
  }

  /** GET `path`. */
  get(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'GET', path, false);
  }

  /** HEAD `path`. */
  head(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'HEAD', path, false);
  }

  /** POST `path` (give `json` or `body` in `init`). Not retried unless `idempotent: true`. */
  post(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'POST', path, false);
  }

  /** PUT `path`. */
  put(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'PUT', path, false);
  }

  /** PATCH `path`. Not retried unless `idempotent: true`. */
  patch(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'PATCH', path, false);
  }

  /** DELETE `path`. */
  delete(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.start(init ?? NO_OPTIONS, 'DELETE', path, false);
  }

  /**
   * GET `path` and decode the JSON body (SPEC 4.1 "GET into a destination"). Sends
   * `accept: application/json` unless told otherwise; a non-JSON content type or invalid JSON gives a
   * {@link DecodeError}; a 204 or empty body gives `undefined`.
   *
   * @example
   * ```ts
   * const users = await client.getJSON<User[]>('users', { query: { active: true } })
   * ```
   */
  async getJSON<T = unknown>(path: string, init?: ShortcutOptions): Promise<T> {
    const response = await this.start(init ?? NO_OPTIONS, 'GET', path, true);
    try {
      return await response.expectJSON<T>();
    } catch (error) {
      throw this.secrets.scrubError(error);
    }
  }

  /**
   * Closes plugins and the transport's connections. Later requests fail; requests waiting for a
   * rate-limit token, a bulkhead slot, a `Retry-After` pause or a retry reject at once, so no timer is
   * left behind. Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const reason = new SluiceError('The client is closed');
    this.loop.close(reason);
    this.bulkhead?.close(reason);
    for (const plugin of this.config.plugins) await plugin.close?.();
    if (this.ownsTransport) await this.transport.close();
  }

  /** Checks the request, starts its deadline and sends it; every failure, synchronous ones too, rejects the promise. */
  private start(init: RequestOptions, method: string, path: string, acceptJSON: boolean): Promise<SluiceResponse> {
    const sent = this.startUnscrubbed(init, method, path, acceptJSON);
    // Whatever a request rejects with (HttpError, a plugin's TokenRequestError...) leaves without the client's secrets.
    if (this.secrets.size === 0) return sent;
    return sent.catch((error: unknown) => {
      throw this.secrets.scrubError(error);
    });
  }

  private startUnscrubbed(init: RequestOptions, method: string, path: string, acceptJSON: boolean): Promise<SluiceResponse> {
    try {
      if (this.closed) throw new SluiceError('The client is closed');
      checkRequestKeys(init);
      const deadline = startDeadline(init.deadline === undefined ? this.config.deadline : checkDeadline('deadline', init.deadline, true), init.signal);
      if (deadline === undefined) return this.send(init, method, path, acceptJSON, init.signal, undefined);
      return this.sendWithDeadline(init, method, path, acceptJSON, deadline);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private async sendWithDeadline(init: RequestOptions, method: string, path: string, acceptJSON: boolean, deadline: RequestDeadline): Promise<SluiceResponse> {
    try {
      const response = await this.send(init, method, path, acceptJSON, deadline.signal, deadline);
      // The deadline bounds the body read too: its timer goes when the body is read or dropped.
      if (response.method === 'HEAD' || response.status === 204 || response.status === 304) deadline.release();
      else response.onBodyEnd(() => deadline.release());
      return response;
    } catch (error) {
      deadline.release();
      throw error;
    }
  }

  /**
   * Prepares the request synchronously (throws {@link ConfigError} for bad input) and sends it: straight
   * to the transport when nothing may have to run around the attempt, else through plugins and the loop.
   */
  private send(
    init: RequestOptions, rawMethod: string, path: string, acceptJSON: boolean, signal: AbortSignal | undefined, deadline: RequestDeadline | undefined,
  ): Promise<SluiceResponse> {
    const method = rawMethod === 'GET' || typeof rawMethod !== 'string' ? rawMethod : rawMethod.toUpperCase();
    if (typeof method !== 'string') throw new ConfigError('method', 'must be a string');
    let url: string;
    let origin: string;
    let targetPath: string;
    const api = this.apiJoin;
    if (api !== undefined && init.query === undefined && typeof path === 'string' && isPlainRelative(path)) {
      url = api.url + path;
      origin = this.baseOrigin!;
      targetPath = api.path + path;
    } else {
      url = requestURL(this.base, this.strategy, this.config.baseURL, path, init.query);
      const target = toTarget(url, this.baseOrigin);
      origin = target.origin;
      targetPath = target.path;
    }
    let headers = this.buildHeaders(init, origin, acceptJSON);
    let body = init.body;
    if (init.json !== undefined) {
      if (body !== undefined) throw new ConfigError('json', 'cannot be combined with body');
      body = JSON.stringify(init.json);
      if (headers['content-type'] === undefined) headers = { ...headers, 'content-type': 'application/json' };
    }
    const retry = init.retry === undefined ? this.config.retry : checkRetry('retry', init.retry, this.config.retry);
    const timeout = init.timeout === undefined ? this.config.timeout : checkTimeout('timeout', init.timeout, false);
    const canRetry = retry.maxAttempts > 1 && isReplayable(body) && (init.idempotent === true || retry.methods.includes(method));
    const attempt: Attempt = {
      id: nextRequestId(), method, url, origin, path: targetPath, headers, body, signal, timeout,
      failFast: init.failFast, deadline, retry, maxAttempts: canRetry ? retry.maxAttempts : 1,
      maxRedirects: init.maxRedirects === undefined ? this.config.maxRedirects : checkMaxRedirects('maxRedirects', init.maxRedirects),
    };
    const throwHttpErrors = init.throwHttpErrors ?? this.config.throwHttpErrors;
    if (this.direct && deadline === undefined && !this.events.enabled && this.loop.pauses?.active !== true) {
      return this.loop.exchange(attempt, throwHttpErrors);
    }
    return this.sendThroughPlugins(init, attempt, throwHttpErrors);
  }

  /** The full path: bulkhead, plugin hooks (and their resends), the attempt loop and `request.end`. */
  private async sendThroughPlugins(init: RequestOptions, attempt: Attempt, throwHttpErrors: boolean): Promise<SluiceResponse> {
    const { method, url, signal } = attempt;
    const plugins = this.config.plugins;
    const started = this.events.enabled ? performance.now() : 0;
    const pluginRequest: { -readonly [K in keyof PluginRequest]: PluginRequest[K] } = {
      id: attempt.id, method, url, origin: attempt.origin, headers: attempt.headers, body: attempt.body, signal, context: init.context ?? {}, resends: 0,
    };
    let resentBy: Set<string> | undefined;
    const bulkhead = this.bulkhead;
    if (bulkhead !== undefined) {
      const turn = bulkhead.acquire(signal);
      if (turn !== undefined) await turn.catch((reason: unknown) => abortOr(reason, method, url, signal));
    }
    try {
      for (;;) {
        for (const plugin of plugins) if (plugin.onRequest) await plugin.onRequest(pluginRequest, this);
        rememberCredentials(this.secrets, this.credentialHeaders, pluginRequest.headers);
        // A plugin may have replaced the headers object rather than changed it.
        const current = pluginRequest.headers === attempt.headers ? attempt : { ...attempt, headers: pluginRequest.headers };
        const response = await this.loop.run(current);
        let resend = false;
        for (const plugin of plugins) {
          if (!plugin.onResponse) continue;
          const verdict = await plugin.onResponse(response, pluginRequest, this);
          if (verdict === 'resend' && !resentBy?.has(plugin.name) && isReplayable(attempt.body)) {
            (resentBy ??= new Set()).add(plugin.name);
            resend = true;
            break;
          }
        }
        if (resend) {
          await response.cancel();
          pluginRequest.resends++;
          continue;
        }
        if (this.events.enabled) requestEnded(this.events, pluginRequest, started, response.status);
        if (throwHttpErrors && response.status >= 400) throw await toHttpError(response);
        return response;
      }
    } catch (error) {
      if (this.events.enabled && !(error instanceof HttpError)) requestEnded(this.events, pluginRequest, started, error);
      // A plugin that reports a deadline's (or AbortSignal.timeout's) abort as a plain AbortError: name it for what it is.
      if (error instanceof AbortError && signal?.aborted) {
        const typed = abortErrorFor(method, url, signal);
        if (typed instanceof DeadlineError) throw typed;
      }
      throw error;
    } finally {
      bulkhead?.release();
    }
  }

  /**
   * The headers of a request. The defaults object itself when nothing changes it and no plugin may
   * (transports and the attempt loop never mutate headers); a copy otherwise.
   */
  private buildHeaders(init: RequestOptions, origin: string, acceptJSON: boolean): Record<string, string> {
    let defaults = acceptJSON ? this.jsonHeaders : this.config.headers;
    if (this.defaultCredentials && origin !== this.baseOrigin) {
      // Default credentials belong to the base URL's origin: an absolute URL elsewhere does not get them.
      defaults = { ...defaults };
      for (const name of this.credentialHeaders) delete defaults[name];
    }
    if (init.headers !== undefined) {
      const headers = { ...defaults, ...checkHeaders('headers', init.headers) };
      rememberCredentials(this.secrets, this.credentialHeaders, headers);
      return headers;
    }
    return this.config.plugins.length === 0 ? defaults : { ...defaults };
  }
}

/**
 * Creates a core HTTP client (SPEC 4.1). Throws {@link ConfigError} at once for invalid options.
 *
 * @example
 * ```ts
 * import { createClient } from '@sluice/core'
 * const client = createClient({ baseURL: 'https://api.example.com/v1', timeout: 5000 })
 * const res = await client.get('/users', { query: { page: 2 } })  // GET https://api.example.com/v1/users?page=2
 * console.log(res.status, await res.json())
 * ```
 */
export function createClient(options: ClientOptions = {}): Client {
  return new Client(options);
}
