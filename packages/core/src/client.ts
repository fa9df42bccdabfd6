import { attemptAnswered, attemptFailed, attemptStarted, requestEnded, retryScheduled, waitAdmitted } from './attempt-events.js';
import { debugListener, debugWriter } from './debug-log.js';
import { abortErrorFor, checkDeadline, DeadlineError, startDeadline, type RequestDeadline } from './deadline.js';
import { toHttpError } from './error-body.js';
import { AbortError, ConfigError, HttpError, DecodeError, NetworkError, RedirectError, SluiceError, TimeoutError } from './errors.js';
import { EventSink } from './events.js';
import { ResponseHeaders } from './headers.js';
import { checkHeaders, checkRetry, checkTimeout, resolveOptions, type ClientOptions, type ResolvedOptions } from './options.js';
import type { Plugin, PluginRequest } from './plugin.js';
import { describeRequest, redactHeaders, redactURL } from './redact.js';
import { nextHop, REDIRECT_STATUSES } from './redirect.js';
import { nextRequestId, type Attempt, type RequestOptions, type ShortcutOptions } from './request-options.js';
import { SluiceResponse, type BodyWatch } from './response.js';
import { backoffDelay, parseRetryAfter, type RetryOptions } from './retry.js';
import { Bulkhead } from './resilience/bulkhead.js';
import { CircuitBreakers, type CircuitState, type CircuitTicket } from './resilience/circuit-breaker.js';
import { ClosableWaits } from './resilience/abort-listeners.js';
import { OriginPauses } from './resilience/origin-pause.js';
import { RetryBudget } from './resilience/retry-budget.js';
import { isRateLimiter, type RateLimiter } from './resilience/options.js';
import { TokenBucket } from './resilience/token-bucket.js';
import { isTransportTimeout, type BodyInit, type Transport, type TransportBody } from './transport/types.js';
import { ProxyError } from './transport/proxy.js';
import { UndiciTransport } from './transport/undici.js';
import { appendQuery, serializeQuery, type QueryInit } from './url/query.js';
import { ABSOLUTE, joinAPI, splitBase, strategyFor, type ResolutionStrategy, type ResolvedURL } from './url/resolve.js';
import { resolveReference } from './url/rfc3986.js';
import { toTarget } from './url/target.js';

export type { RequestOptions, ShortcutOptions } from './request-options.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const JSON_TYPE = /(^|\/|\+)json\b/i;

const NOTHING = (): void => undefined;

/** Marks a request made by getJSON: start from the JSON default headers (no extra object per call). */
const ACCEPT_JSON = Symbol('acceptJSON');

const EMPTY_BODY: TransportBody = {
  async *[Symbol.asyncIterator]() {},
  async cancel() {},
};

/** A failure that says the server or network is in trouble (retried, counted by the breaker); a deadline is not. */
function isOutage(error: unknown): boolean {
  return (error instanceof NetworkError || error instanceof TimeoutError) && !(error instanceof DeadlineError);
}

function isReplayable(body: BodyInit | undefined): boolean {
  return body === undefined || typeof body === 'string' || body instanceof Uint8Array;
}

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
export class Client {
  private readonly config: ResolvedOptions;
  private shown: Readonly<ResolvedOptions> | undefined;
  /** Where the client's events go (the `onEvent` option is its first listener); plugins and OData emit here too. */
  readonly events: EventSink;
  /** The transport requests go through; plugins (OAuth's token endpoint) reuse it to share proxy and TLS settings. */
  readonly transport: Transport;
  private readonly ownsTransport: boolean;
  private readonly strategy: ResolutionStrategy;
  private readonly base: ReturnType<typeof splitBase> | undefined;
  private readonly baseOrigin: string | undefined;
  private readonly credentialHeaders: readonly string[];
  private closed = false;
  /** The default headers plus `accept: application/json` unless set: what getJSON starts from. */
  private readonly jsonHeaders: Readonly<Record<string, string>>;
  /** Whether the default headers carry credentials (only sent to the base URL's origin). */
  private readonly defaultCredentials: boolean;
  // Resilience parts: each undefined when its option is off, so the hot path skips it with one check.
  private readonly limiter: RateLimiter | undefined;
  private readonly breakers: CircuitBreakers | undefined;
  private readonly budget: RetryBudget | undefined;
  private readonly bulkhead: Bulkhead | undefined;
  private readonly pauses: OriginPauses | undefined;
  private readonly maxPause: number;
  private readonly gated: boolean;
  private readonly waits = new ClosableWaits();

  /** Prefer {@link createClient}. */
  constructor(options: ClientOptions) {
    const resolved = resolveOptions(options);
    this.ownsTransport = options.transport === undefined;
    this.transport = options.transport ?? new UndiciTransport({ proxy: options.proxy, tls: options.tls });
    // Headers the transport always wants (accept-encoding) go under the caller's defaults, once, not per request.
    if (this.transport.defaultHeaders !== undefined) resolved.headers = { ...this.transport.defaultHeaders, ...resolved.headers };
    this.config = resolved;
    this.events = new EventSink(resolved.onEvent === undefined ? [] : [resolved.onEvent]);
    const debug = debugWriter();
    if (debug !== undefined) this.events.on(debugListener(debug));
    if (this.transport.insecureTLS === true) this.events.emit('tls.insecure', { option: 'tls.insecureSkipVerify' });
    const { baseURL } = resolved;
    this.strategy = baseURL === undefined ? 'rfc3986' : strategyFor({ baseURL, urlNormalization: resolved.urlNormalization });
    this.base = baseURL === undefined ? undefined : splitBase(baseURL);
    this.baseOrigin = baseURL === undefined ? undefined : new URL(baseURL).origin;
    this.jsonHeaders = { accept: 'application/json', ...resolved.headers };
    this.credentialHeaders = [
      ...resolved.sensitiveHeaders,
      ...resolved.plugins.flatMap((p) => (p.credentialHeaders ?? []).map((h) => h.toLowerCase())),
    ];
    this.defaultCredentials = this.credentialHeaders.some((name) => resolved.headers[name] !== undefined);
    const { rateLimit, circuitBreaker, retryBudget, bulkhead, pauseOnRetryAfter } = this.config.resilience;
    this.limiter = rateLimit && (isRateLimiter(rateLimit) ? rateLimit : new TokenBucket(rateLimit));
    const onStateChange = circuitBreaker?.onStateChange;
    this.breakers = circuitBreaker && new CircuitBreakers({ ...circuitBreaker, onStateChange: (change) => {
      onStateChange?.(change);
      this.events.emit('circuit.state', { origin: change.origin, from: change.from, to: change.to, reason: change.reason });
    } });
    this.budget = retryBudget && new RetryBudget(retryBudget);
    this.bulkhead = bulkhead && new Bulkhead(bulkhead);
    this.pauses = pauseOnRetryAfter && new OriginPauses();
    this.maxPause = pauseOnRetryAfter?.maxPause ?? 0;
    this.gated = this.limiter !== undefined || this.breakers !== undefined;
    for (const plugin of this.config.plugins) plugin.setup?.(this);
  }

  /** The validated options, defaults filled in; credential headers show as `[REDACTED]`. */
  get options(): Readonly<ResolvedOptions> {
    return (this.shown ??= Object.freeze({ ...this.config, headers: redactHeaders(this.config.headers, this.credentialHeaders) }));
  }

  /**
   * State of the circuit breaker for `origin` (default: the base URL's origin), or undefined when the
   * client has no `circuitBreaker`. An open circuit whose `openDuration` has passed reports `half-open`.
   */
  circuitState(origin: string | undefined = this.baseOrigin): CircuitState | undefined {
    if (this.breakers === undefined || origin === undefined) return undefined;
    return this.breakers.state(origin);
  }

  /** Origin (`scheme://host[:port]`) of the base URL, or undefined without one. */
  get origin(): string | undefined {
    return this.baseOrigin;
  }

  /** Resolves `path` as a request would, without sending anything (SPEC 4.1 debug aid). */
  resolve(path: string): ResolvedURL {
    return { url: this.buildURL(path, undefined), strategy: this.strategy };
  }

  /** Finds a plugin by name, for helpers such as `forceRefresh(client)`. */
  plugin<T extends Plugin = Plugin>(name: string): T | undefined {
    return this.config.plugins.find((p) => p.name === name) as T | undefined;
  }

  /**
   * Sends a request and resolves with the response once its headers arrive; the body is read from the
   * response. Rejects with {@link HttpError} for status >= 400 (unless `throwHttpErrors` is false),
   * {@link TimeoutError} (a {@link DeadlineError} past the deadline), `AbortError`, {@link NetworkError} or {@link ConfigError}.
   */
  async request(init: RequestOptions = {}): Promise<SluiceResponse> {
    if (this.closed) throw new SluiceError('The client is closed');
    const deadline = startDeadline(init.deadline === undefined ? this.config.deadline : checkDeadline('deadline', init.deadline, true), init.signal);
    if (deadline === undefined) return this.send(init, init.signal, undefined);
    try {
      const response = await this.send(init, deadline.signal, deadline);
      // The deadline bounds the body read too: its timer goes when the body is read or dropped.
      if (response.method === 'HEAD' || response.status === 204 || response.status === 304) deadline.release();
      else response.onBodyEnd(() => deadline.release());
      return response;
    } catch (error) {
      deadline.release();
      throw error;
    }
  }

  private async send(init: RequestOptions, signal: AbortSignal | undefined, deadline: RequestDeadline | undefined): Promise<SluiceResponse> {
    const method = (init.method ?? 'GET').toUpperCase();
    const url = this.buildURL(init.path ?? '', init.query);
    const target = toTarget(url, this.baseOrigin);
    const headers = this.buildHeaders(init, target.origin);
    let body = init.body;
    if (init.json !== undefined) {
      if (body !== undefined) throw new ConfigError('json', 'cannot be combined with body');
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const retry = init.retry === undefined ? this.config.retry : checkRetry('retry', init.retry, this.config.retry);
    const timeout = init.timeout === undefined ? this.config.timeout : checkTimeout('timeout', init.timeout, false);
    const canRetry = retry.maxAttempts > 1 && isReplayable(body) && (init.idempotent === true || retry.methods.includes(method));
    const plugins = this.config.plugins;
    const throwHttpErrors = init.throwHttpErrors ?? this.config.throwHttpErrors;

    const started = this.events.enabled ? performance.now() : 0;
    const pluginRequest: { -readonly [K in keyof PluginRequest]: PluginRequest[K] } = {
      id: nextRequestId(), method, url, origin: target.origin, headers, body, signal, context: init.context ?? {}, resends: 0,
    };
    let resentBy: Set<string> | undefined;
    const bulkhead = this.bulkhead;
    if (bulkhead !== undefined) {
      const turn = bulkhead.acquire(signal);
      if (turn !== undefined) await turn.catch((reason: unknown) => this.abortOr(reason, method, url, signal));
    }
    try {
      for (;;) {
        for (const plugin of plugins) if (plugin.onRequest) await plugin.onRequest(pluginRequest, this);
        const attempt: Attempt = { id: pluginRequest.id, method, url, origin: target.origin, headers: pluginRequest.headers, body, failFast: init.failFast, deadline };
        const response = await this.sendWithRetries(attempt, target.path, retry, canRetry, timeout, signal);
        let resend = false;
        for (const plugin of plugins) {
          if (!plugin.onResponse) continue;
          const verdict = await plugin.onResponse(response, pluginRequest, this);
          if (verdict === 'resend' && !resentBy?.has(plugin.name) && isReplayable(body)) {
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

  /** GET `path`. */
  get(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'GET', path });
  }

  /** HEAD `path`. */
  head(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'HEAD', path });
  }

  /** POST `path` (give `json` or `body` in `init`). Not retried unless `idempotent: true`. */
  post(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'POST', path });
  }

  /** PUT `path`. */
  put(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'PUT', path });
  }

  /** PATCH `path`. Not retried unless `idempotent: true`. */
  patch(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'PATCH', path });
  }

  /** DELETE `path`. */
  delete(path: string, init?: ShortcutOptions): Promise<SluiceResponse> {
    return this.request({ ...init, method: 'DELETE', path });
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
    const response = await this.request({ ...init, method: 'GET', path, [ACCEPT_JSON]: true } as RequestOptions);
    const type = response.headers.get('content-type');
    if (type !== null && !JSON_TYPE.test(type) && response.status !== 204) {
      const excerpt = await response.text().catch(() => '');
      throw new DecodeError(`${describeRequest('GET', response.url)}: expected a JSON response, got content-type ${type}`, response.status, excerpt);
    }
    return response.json<T>();
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
    this.waits.close(reason);
    this.limiter?.close?.(reason);
    this.bulkhead?.close(reason);
    this.pauses?.close(reason);
    for (const plugin of this.config.plugins) await plugin.close?.();
    if (this.ownsTransport) await this.transport.close();
  }

  private buildURL(path: string, query: QueryInit | undefined): string {
    if (typeof path !== 'string') throw new ConfigError('path', 'must be a string');
    let url: string;
    if (this.base === undefined) {
      if (!ABSOLUTE.test(path)) throw new ConfigError('path', `must be an absolute URL when the client has no baseURL, got ${JSON.stringify(redactURL(path))}`);
      url = path;
    } else if (this.strategy === 'api') url = ABSOLUTE.test(path) ? path : joinAPI(this.base, path);
    else url = resolveReference(this.config.baseURL!, path);
    return query === undefined ? url : appendQuery(url, serializeQuery(query));
  }

  private buildHeaders(init: RequestOptions, origin: string): Record<string, string> {
    let defaults = (init as { [ACCEPT_JSON]?: boolean })[ACCEPT_JSON] === true ? this.jsonHeaders : this.config.headers;
    if (this.defaultCredentials && origin !== this.baseOrigin) {
      // Default credentials belong to the base URL's origin: an absolute URL elsewhere does not get them.
      defaults = { ...defaults };
      for (const name of this.credentialHeaders) delete defaults[name];
    }
    if (init.headers === undefined) return { ...defaults };
    return { ...defaults, ...checkHeaders('headers', init.headers) };
  }

  private async sendWithRetries(
    attempt: Attempt, path: string, retry: RetryOptions, canRetry: boolean, timeout: number | false, signal: AbortSignal | undefined,
  ): Promise<SluiceResponse> {
    this.budget?.recordRequest();
    const max = canRetry ? retry.maxAttempts : 1;
    const { events } = this;
    for (let n = 1; ; n++) {
      const last = n >= max;
      const started = events.enabled ? attemptStarted(events, attempt, n, max) : undefined;
      let response: SluiceResponse;
      try {
        response = await this.sendFollowingRedirects(attempt, path, timeout, signal);
      } catch (error) {
        if (started !== undefined) attemptFailed(events, attempt, n, max, started, error);
        const refusedByProxy = error instanceof ProxyError && error.refused;
        if (last || !isOutage(error) || refusedByProxy || !retry.retryOnNetworkError) throw error;
        const pause = backoffDelay(n, retry);
        // A retry whose wait would pass the deadline is not started: the caller gets this failure now.
        if (attempt.deadline?.passedAfter(pause) || !this.retryFitsBudget()) throw error;
        if (events.enabled) retryScheduled(events, attempt, n, max, pause, error);
        await this.wait(pause, attempt, signal);
        continue;
      }
      if (started !== undefined) attemptAnswered(events, attempt, n, max, started, response.status);
      if (last || !retry.retryableStatus.includes(response.status)) return response;
      const retryAfter = parseRetryAfter(response.headers.get('retry-after') ?? undefined);
      // A server asking for a longer pause than we accept gets its answer back instead of a retry.
      if (retryAfter !== undefined && retryAfter > retry.maxWait) return response;
      const pause = Math.max(backoffDelay(n, retry), retryAfter ?? 0);
      // Retries past the deadline, or beyond the client-wide budget (a retry storm), are not started.
      if (attempt.deadline?.passedAfter(pause) || !this.retryFitsBudget()) return response;
      await response.cancel();
      if (events.enabled) retryScheduled(events, attempt, n, max, pause, response.status);
      await this.wait(pause, attempt, signal);
    }
  }

  private retryFitsBudget(): boolean {
    return this.budget === undefined || this.budget.tryRetry();
  }

  private async wait(ms: number, attempt: Attempt, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.waits.sleep(ms, signal);
    } catch (reason) {
      this.abortOr(reason, attempt.method, attempt.url, signal);
    }
  }

  /**
   * Rethrows a wait's rejection: the caller's abort as {@link AbortError} (a deadline as {@link DeadlineError}),
   * anything else (close, limits) as is.
   */
  private abortOr(reason: unknown, method: string, url: string, signal: AbortSignal | undefined): never {
    if (signal?.aborted && reason === signal.reason) throw abortErrorFor(method, url, signal);
    throw reason;
  }

  /**
   * Admits an attempt: rejects at once on an open circuit, else waits out a `Retry-After` pause of the
   * origin and then for a rate-limit token. `undefined` when there is nothing to wait for (no promise).
   */
  private admit(attempt: Attempt, signal: AbortSignal | undefined): Promise<void> | undefined {
    // Reject before queueing: a request bound for an open circuit must not wait for a token first.
    this.breakers?.check(attempt.origin);
    const paused = this.pauses?.wait(attempt.origin, signal);
    if (paused !== undefined) return this.waitThenTake(paused, attempt, signal);
    const turn = this.limiter?.take(signal, attempt.failFast);
    return turn?.catch((reason: unknown) => this.abortOr(reason, attempt.method, attempt.url, signal));
  }

  private async waitThenTake(paused: Promise<void>, attempt: Attempt, signal: AbortSignal | undefined): Promise<void> {
    try {
      await paused;
      const turn = this.limiter?.take(signal, attempt.failFast);
      if (turn !== undefined) await turn;
    } catch (reason) {
      this.abortOr(reason, attempt.method, attempt.url, signal);
    }
  }

  private async sendFollowingRedirects(
    first: Attempt, firstPath: string, timeout: number | false, signal: AbortSignal | undefined,
  ): Promise<SluiceResponse> {
    let attempt = first;
    let path = firstPath;
    for (let redirects = 0; ; redirects++) {
      const response = await this.sendOnce(attempt, path, timeout, signal, redirects > 0);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || !SAFE_METHODS.has(attempt.method) || this.config.maxRedirects === 0) {
        return response;
      }
      await response.cancel();
      if (redirects >= this.config.maxRedirects) {
        throw new RedirectError(first.method, first.url, `more than ${this.config.maxRedirects} redirects`);
      }
      const from = attempt.url;
      attempt = nextHop(first, attempt, location, this.credentialHeaders);
      if (this.events.enabled) this.events.emit('redirect.followed', { method: attempt.method, status: response.status, from: redactURL(from), to: redactURL(attempt.url) });
      path = toTarget(attempt.url, undefined).path;
    }
  }

  private async sendOnce(
    attempt: Attempt, path: string, timeout: number | false, signal: AbortSignal | undefined, redirected: boolean,
  ): Promise<SluiceResponse> {
    if (signal?.aborted) throw abortErrorFor(attempt.method, attempt.url, signal);
    if (this.gated || (this.pauses !== undefined && this.pauses.active)) {
      const admitted = this.admit(attempt, signal);
      if (admitted !== undefined) await waitAdmitted(admitted, this.events, attempt.origin);
    }
    // Every attempt (retries and redirect hops too) passes the breaker of the origin it goes to.
    let ticket: CircuitTicket | undefined = this.breakers?.acquire(attempt.origin);
    const classify = (error: unknown): unknown => {
      if (error instanceof SluiceError) return error;
      if (timeout !== false && isTransportTimeout(this.transport, error)) {
        return new TimeoutError(attempt.method, attempt.url, timeout, { cause: error });
      }
      if (signal?.aborted) return abortErrorFor(attempt.method, attempt.url, signal);
      return new NetworkError(attempt.method, attempt.url, { cause: error });
    };
    try {
      // The transport enforces the timeout itself (undici's own timers cost nothing per request).
      const raw = await this.transport.send({
        origin: attempt.origin, path, method: attempt.method, headers: attempt.headers, body: attempt.body, signal, timeout,
      });
      // 5xx counts against the origin's circuit; 4xx (429 included) is the caller's problem, not an outage.
      if (ticket !== undefined) {
        this.breakers!.record(ticket, raw.status >= 500 ? 'failure' : 'success');
        ticket = undefined;
      }
      if ((raw.status === 429 || raw.status === 503) && this.pauses !== undefined) this.pauseOrigin(attempt.origin, raw.status, raw.headers['retry-after']);
      let body = raw.body;
      const breakers = this.breakers;
      let bodyDone = NOTHING;
      let mapError = classify;
      if (breakers !== undefined && raw.status < 500) {
        let broken = false;
        let finished = false;
        mapError = (error: unknown): unknown => {
          const mapped = classify(error);
          // A reset or stall mid-body is an outage too, even though the headers looked fine.
          if (!broken && isOutage(mapped)) {
            broken = true;
            breakers.recordLateFailure(attempt.origin);
          }
          return mapped;
        };
        bodyDone = () => {
          if (!finished && !broken) breakers.recordBodyDone(attempt.origin);
          finished = true;
        };
      }
      if (attempt.method === 'HEAD' || raw.status === 204 || raw.status === 304) {
        // No body can follow: free the connection now.
        await body.cancel();
        body = EMPTY_BODY;
        bodyDone();
      }
      const watch: BodyWatch = { done: bodyDone, mapError };
      return new SluiceResponse(
        { status: raw.status, headers: new ResponseHeaders(raw.headers, raw.setCookie), method: attempt.method, url: attempt.url, redirected },
        body,
        this.config.maxResponseBytes,
        watch,
      );
    } catch (error) {
      const mapped = classify(error);
      if (ticket !== undefined) this.breakers!.record(ticket, isOutage(mapped) ? 'failure' : 'neutral');
      throw mapped;
    }
  }

  /** RFC 9110 section 10.2.3 / RFC 6585 section 4: hold back every caller's attempts to `origin` until Retry-After. */
  private pauseOrigin(origin: string, status: number, retryAfter: string | undefined): void {
    const ms = parseRetryAfter(retryAfter);
    if (ms === undefined || ms <= 0) return;
    const pauseMs = Math.min(ms, this.maxPause);
    this.pauses!.pause(origin, pauseMs);
    this.events.emit('origin.paused', { origin, status, pauseMs, retryAfterMs: ms });
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
