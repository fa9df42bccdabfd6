import { attemptAnswered, attemptFailed, attemptStarted, retryScheduled, waitAdmitted } from './attempt-events.js';
import { abortErrorFor, DeadlineError } from './deadline.js';
import { toHttpError } from './error-body.js';
import { NetworkError, RedirectError, SluiceError, TimeoutError } from './errors.js';
import type { EventSink } from './events.js';
import type { KnownSecrets } from './known-secrets.js';
import type { ResolvedOptions } from './types.js';
import { redactURL } from './redact.js';
import { nextHop, REDIRECT_STATUSES } from './redirect.js';
import type { Attempt } from './request-options.js';
import { SluiceResponse, type BodyWatch } from './response.js';
import { backoffDelay, parseRetryAfter } from './retry.js';
import { ClosableWaits } from './resilience/abort-listeners.js';
import { CircuitBreakers, type CircuitTicket } from './resilience/circuit-breaker.js';
import { OriginPauses } from './resilience/origin-pause.js';
import { isRateLimiter, type RateLimiter } from './resilience/options.js';
import { RetryBudget } from './resilience/retry-budget.js';
import { TokenBucket } from './resilience/token-bucket.js';
import { isTransportTimeout, type Transport, type TransportBody, type TransportResponse } from './transport/types.js';
import { ProxyError } from './transport/proxy.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

const EMPTY_BODY: TransportBody = {
  async *[Symbol.asyncIterator]() {},
  async cancel() {},
};

/** A failure that says the server or network is in trouble (retried, counted by the breaker); a deadline is not. */
export function isOutage(error: unknown): boolean {
  return (error instanceof NetworkError || error instanceof TimeoutError) && !(error instanceof DeadlineError);
}

/** What the first attempt got when the client's direct path hands a request to the loop. */
export type FirstOutcome = { response: TransportResponse; error?: undefined } | { response?: undefined; error: unknown };

/** The body hooks of an attempt without a circuit breaker: one object, no closures, types the body's errors. */
class AttemptWatch implements BodyWatch {
  constructor(private readonly loop: AttemptLoop, private readonly attempt: Attempt) {}
  done(): void {}
  mapError(error: unknown): unknown {
    return this.loop.classify(error, this.attempt);
  }
}

/**
 * The attempts of one request: retries with backoff (within the retry budget and the deadline), safe
 * redirects, admission (open circuit, `Retry-After` pause, rate limit), the circuit breaker's bookkeeping
 * and the per-attempt events. The client runs a request through {@link AttemptLoop.run} when something
 * may have to happen between attempts; a plain request that got a plain answer never enters it.
 */
export class AttemptLoop {
  readonly limiter: RateLimiter | undefined;
  readonly breakers: CircuitBreakers | undefined;
  readonly pauses: OriginPauses | undefined;
  /** Whether every attempt must be admitted (rate limit or breaker configured). */
  readonly gated: boolean;
  private readonly budget: RetryBudget | undefined;
  private readonly maxPause: number;
  private readonly waits = new ClosableWaits();
  private readonly maxResponseBytes: number;

  constructor(
    private readonly transport: Transport,
    private readonly events: EventSink,
    config: ResolvedOptions,
    private readonly credentialHeaders: readonly string[],
    private readonly secrets?: KnownSecrets | undefined,
  ) {
    this.maxResponseBytes = config.maxResponseBytes;
    const { rateLimit, circuitBreaker, retryBudget, pauseOnRetryAfter } = config.resilience;
    this.limiter = rateLimit && (isRateLimiter(rateLimit) ? rateLimit : new TokenBucket(rateLimit));
    const onStateChange = circuitBreaker?.onStateChange;
    this.breakers = circuitBreaker && new CircuitBreakers({ ...circuitBreaker, onStateChange: (change) => {
      onStateChange?.(change);
      events.emit('circuit.state', { origin: change.origin, from: change.from, to: change.to, reason: change.reason });
    } });
    this.budget = retryBudget && new RetryBudget(retryBudget);
    this.pauses = pauseOnRetryAfter && new OriginPauses();
    this.maxPause = pauseOnRetryAfter?.maxPause ?? 0;
    this.gated = this.limiter !== undefined || this.breakers !== undefined;
  }

  /** Counts a request that may retry in the retry budget (one that cannot retry never asks the budget). */
  countRequest(attempt: Attempt): void {
    if (attempt.maxAttempts > 1) this.budget?.recordRequest();
  }

  /**
   * Whether the first answer of a request sent directly needs the loop: a redirect to follow, a status to
   * retry or to pause the origin for, or a body that cannot follow.
   */
  needsLoop(raw: TransportResponse, attempt: Attempt): boolean {
    const status = raw.status;
    if (status < 300) return status === 204 || attempt.method === 'HEAD';
    if (status === 304 || (REDIRECT_STATUSES.has(status) && attempt.maxRedirects > 0)) return true;
    if ((status === 429 || status === 503) && this.pauses !== undefined) return true;
    return attempt.maxAttempts > 1 && attempt.retry.retryableStatus.includes(status);
  }

  /**
   * Sends `attempt` until it gets an answer to keep: retries, redirects and events. `first` continues a
   * request whose first attempt the client sent directly (its request was counted already).
   */
  async run(attempt: Attempt, first?: FirstOutcome): Promise<SluiceResponse> {
    if (first === undefined) this.countRequest(attempt);
    const { retry, maxAttempts: max, signal } = attempt;
    const { events } = this;
    for (let n = 1; ; n++) {
      const last = n >= max;
      const started = events.enabled && (n > 1 || first === undefined) ? attemptStarted(events, attempt, n, max) : undefined;
      let response: SluiceResponse;
      try {
        if (n === 1 && first?.error !== undefined) throw first.error;
        response = await this.followRedirects(attempt, n === 1 ? first?.response : undefined);
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

  /** Ends every wait (retry pause, rate-limit token, origin pause) with `reason`. */
  close(reason: unknown): void {
    this.waits.close(reason);
    this.limiter?.close?.(reason);
    this.pauses?.close(reason);
  }

  /**
   * Types a transport failure: sluice errors as they are, the transport's timeout as {@link TimeoutError},
   * the caller's abort as `AbortError` (a deadline as {@link DeadlineError}), anything else as {@link NetworkError}.
   */
  classify(error: unknown, attempt: Attempt): unknown {
    if (error instanceof SluiceError) return error;
    if (attempt.timeout !== false && isTransportTimeout(this.transport, error)) {
      return new TimeoutError(attempt.method, attempt.url, attempt.timeout, { cause: error });
    }
    if (attempt.signal?.aborted) return abortErrorFor(attempt.method, attempt.url, attempt.signal);
    return new NetworkError(attempt.method, attempt.url, { cause: error });
  }

  /** The response to hand the caller for a transport answer that has a body to read (no breaker to tell). */
  respond(raw: TransportResponse, attempt: Attempt, redirected: boolean): SluiceResponse {
    return new SluiceResponse(
      { status: raw.status, headers: raw.headers, setCookie: raw.setCookie, method: attempt.method, url: attempt.url, redirected, secrets: this.secrets },
      raw.body,
      this.maxResponseBytes,
      new AttemptWatch(this, attempt),
    );
  }

  /**
   * The common path in one async function: one await on the transport, then status checks; the attempt
   * loop runs only when the answer or the failure needs it (a redirect, a status or error to retry).
   */
  async exchange(attempt: Attempt, throwHttpErrors: boolean): Promise<SluiceResponse> {
    const { signal } = attempt;
    if (signal?.aborted) throw abortErrorFor(attempt.method, attempt.url, signal);
    this.countRequest(attempt);
    let raw: TransportResponse;
    try {
      raw = await this.transport.send(attempt);
    } catch (error) {
      const mapped = this.classify(error, attempt);
      if (attempt.maxAttempts === 1) throw mapped;
      return settle(await this.run(attempt, { error: mapped }), throwHttpErrors);
    }
    if (this.needsLoop(raw, attempt)) return settle(await this.run(attempt, { response: raw } satisfies FirstOutcome), throwHttpErrors);
    const response = this.respond(raw, attempt, false);
    if (throwHttpErrors && response.status >= 400) throw await toHttpError(response);
    return response;
  }

  private retryFitsBudget(): boolean {
    return this.budget === undefined || this.budget.tryRetry();
  }

  private async wait(ms: number, attempt: Attempt, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.waits.sleep(ms, signal);
    } catch (reason) {
      abortOr(reason, attempt.method, attempt.url, signal);
    }
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
    return turn?.catch((reason: unknown) => abortOr(reason, attempt.method, attempt.url, signal));
  }

  private async waitThenTake(paused: Promise<void>, attempt: Attempt, signal: AbortSignal | undefined): Promise<void> {
    try {
      await paused;
      const turn = this.limiter?.take(signal, attempt.failFast);
      if (turn !== undefined) await turn;
    } catch (reason) {
      abortOr(reason, attempt.method, attempt.url, signal);
    }
  }

  private async followRedirects(first: Attempt, firstAnswer: TransportResponse | undefined): Promise<SluiceResponse> {
    let attempt = first;
    for (let redirects = 0; ; redirects++) {
      const response = redirects === 0 && firstAnswer !== undefined
        ? await this.answer(firstAnswer, attempt, false, undefined)
        : await this.sendOnce(attempt, redirects > 0);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null || !SAFE_METHODS.has(attempt.method) || first.maxRedirects === 0) {
        return response;
      }
      await response.cancel();
      if (redirects >= first.maxRedirects) {
        throw new RedirectError(first.method, first.url, `more than ${first.maxRedirects} redirects`);
      }
      const from = attempt.url;
      attempt = nextHop(first, attempt, location, this.credentialHeaders);
      if (this.events.enabled) this.events.emit('redirect.followed', { method: attempt.method, status: response.status, from: redactURL(from), to: redactURL(attempt.url) });
    }
  }

  private async sendOnce(attempt: Attempt, redirected: boolean): Promise<SluiceResponse> {
    const { signal } = attempt;
    if (signal?.aborted) throw abortErrorFor(attempt.method, attempt.url, signal);
    if (this.gated || (this.pauses !== undefined && this.pauses.active)) {
      const admitted = this.admit(attempt, signal);
      if (admitted !== undefined) await waitAdmitted(admitted, this.events, attempt.origin);
    }
    // Every attempt (retries and redirect hops too) passes the breaker of the origin it goes to.
    const ticket: CircuitTicket | undefined = this.breakers?.acquire(attempt.origin);
    let raw: TransportResponse;
    try {
      // The transport enforces the timeout itself. The attempt carries every field of a transport request.
      raw = await this.transport.send(attempt);
    } catch (error) {
      const mapped = this.classify(error, attempt);
      if (ticket !== undefined) this.breakers!.record(ticket, isOutage(mapped) ? 'failure' : 'neutral');
      throw mapped;
    }
    return this.answer(raw, attempt, redirected, ticket);
  }

  /** Turns a transport answer into the response: breaker and pause bookkeeping, and no body where none can follow. */
  private async answer(raw: TransportResponse, attempt: Attempt, redirected: boolean, ticket: CircuitTicket | undefined): Promise<SluiceResponse> {
    const breakers = this.breakers;
    try {
      // 5xx counts against the origin's circuit; 4xx (429 included) is the caller's problem, not an outage.
      if (ticket !== undefined) breakers!.record(ticket, raw.status >= 500 ? 'failure' : 'success');
      if ((raw.status === 429 || raw.status === 503) && this.pauses !== undefined) this.pauseOrigin(attempt.origin, raw.status, raw.headers['retry-after']);
      const noBody = attempt.method === 'HEAD' || raw.status === 204 || raw.status === 304;
      if (breakers === undefined || raw.status >= 500) {
        if (!noBody) return this.respond(raw, attempt, redirected);
        // No body can follow: free the connection now.
        await raw.body.cancel();
        return this.respond({ ...raw, body: EMPTY_BODY }, attempt, redirected);
      }
      let broken = false;
      let finished = false;
      const watch: BodyWatch = {
        mapError: (error: unknown): unknown => {
          const mapped = this.classify(error, attempt);
          // A reset or stall mid-body is an outage too, even though the headers looked fine.
          if (!broken && isOutage(mapped)) {
            broken = true;
            breakers.recordLateFailure(attempt.origin);
          }
          return mapped;
        },
        done: () => {
          if (!finished && !broken) breakers.recordBodyDone(attempt.origin);
          finished = true;
        },
      };
      let body = raw.body;
      if (noBody) {
        await body.cancel();
        body = EMPTY_BODY;
        watch.done();
      }
      return new SluiceResponse(
        { status: raw.status, headers: raw.headers, setCookie: raw.setCookie, method: attempt.method, url: attempt.url, redirected, secrets: this.secrets },
        body,
        this.maxResponseBytes,
        watch,
      );
    } catch (error) {
      throw this.classify(error, attempt);
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
 * Rethrows a wait's rejection: the caller's abort as `AbortError` (a deadline as {@link DeadlineError}),
 * anything else (close, limits) as is.
 */
export function abortOr(reason: unknown, method: string, url: string, signal: AbortSignal | undefined): never {
  if (signal?.aborted && reason === signal.reason) throw abortErrorFor(method, url, signal);
  throw reason;
}

async function settle(response: SluiceResponse, throwHttpErrors: boolean): Promise<SluiceResponse> {
  if (throwHttpErrors && response.status >= 400) throw await toHttpError(response);
  return response;
}
