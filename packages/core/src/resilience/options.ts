import { ConfigError } from '../errors.js';
import { checkOptionKeys } from '../option-keys.js';

/** State of one origin's circuit. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/** What `circuitBreaker.onStateChange` receives. */
export interface CircuitStateChange {
  /** The origin whose circuit changed. */
  origin: string;
  from: CircuitState;
  to: CircuitState;
  /** Why, e.g. `5 consecutive failures` or `probe succeeded`. */
  reason: string;
  /** When opening: epoch ms from which a probe will be let through. */
  retryAt?: number | undefined;
}

/**
 * Client-side rate limit (`rateLimit` option): a token bucket shared by every request of the client.
 * Each attempt (retries and redirect hops included) takes one token; without a free token it waits in a
 * bounded FIFO queue (cancelled by its `signal`), or fails at once with `failFast`.
 *
 * @example
 * ```ts
 * createClient({ baseURL, rateLimit: { requestsPerSecond: 50, burst: 10 } })
 * ```
 */
export interface RateLimitOptions {
  /** Sustained rate: tokens added per second. Required, > 0. */
  requestsPerSecond: number;
  /** Bucket size: how many requests may go at once after a quiet spell. Default 1 (no bursts). */
  burst?: number | undefined;
  /** Most requests waiting for a token; one more gets {@link RateLimitError}. Default 1000. */
  maxQueue?: number | undefined;
  /** Reject with {@link RateLimitError} instead of waiting when no token is free. Default false. */
  failFast?: boolean | undefined;
}

/**
 * A rate limiter the client can use instead of its own token bucket (`rateLimit: myLimiter`), for
 * example one that shares a budget between processes (`@sluice/redis`). Each attempt calls `take` once.
 *
 * @example
 * ```ts
 * const limiter: RateLimiter = { take: (signal) => sharedBudget.acquire(signal) }
 * createClient({ baseURL, rateLimit: limiter })
 * ```
 */
export interface RateLimiter {
  /**
   * Takes one permit: `undefined` when it was granted at once (the cheap path), else a promise that
   * resolves when it is granted and rejects with the signal's reason on abort. Throws (or rejects with)
   * {@link RateLimitError} when the request is refused; `failFast` is the request's override of waiting.
   */
  take(signal: AbortSignal | undefined, failFast?: boolean): Promise<void> | undefined;
  /** Called by `client.close()`: reject waiters with `reason`, stop timers. */
  close?(reason: unknown): void;
}

/** Whether a `rateLimit` option is a {@link RateLimiter} object rather than {@link RateLimitOptions}. */
export function isRateLimiter(value: unknown): value is RateLimiter {
  return typeof value === 'object' && value !== null && typeof (value as RateLimiter).take === 'function';
}

/**
 * Per-origin circuit breaker (`circuitBreaker` option). 5xx responses, timeouts and network errors
 * count as failures; 4xx responses and caller aborts do not. The breaker opens after
 * `consecutiveFailures` failures in a row, or when at least `minimumRequests` attempts in the last
 * `window` ms failed at `failureRatio` or more; while open it rejects with {@link CircuitOpenError};
 * after `openDuration` it lets `halfOpenProbes` attempts through, closes on the first success and
 * reopens on a failure.
 *
 * @example
 * ```ts
 * createClient({ baseURL, circuitBreaker: { consecutiveFailures: 5, openDuration: 10_000,
 *   onStateChange: (c) => log.warn(`${c.origin}: ${c.from} -> ${c.to} (${c.reason})`) } })
 * ```
 */
export interface CircuitBreakerOptions {
  /** Failures in a row that open the circuit. Default 5. */
  consecutiveFailures?: number | undefined;
  /** Share of failed attempts in the window (0 < r <= 1) that opens the circuit. Default 0.5. */
  failureRatio?: number | undefined;
  /** Fewest attempts in the window before the ratio is judged. Default 20. */
  minimumRequests?: number | undefined;
  /** Length of the ratio window in ms. Default 10000. */
  window?: number | undefined;
  /** How long the circuit stays open before probing, in ms. Default 10000. */
  openDuration?: number | undefined;
  /** Attempts let through at once while half-open. Default 1. */
  halfOpenProbes?: number | undefined;
  /** Called on every state change (errors it throws are ignored). */
  onStateChange?: ((change: CircuitStateChange) => void) | undefined;
}

/**
 * Client-wide retry budget (`retryBudget` option, on by default): retries within the last `window` ms
 * may not exceed `ratio` times the requests in that window, plus `minRetriesPerSecond` so a quiet
 * client can still retry. A failing dependency therefore sees at most about `1 + ratio` times the
 * normal traffic, never `maxAttempts` times. A retry the budget refuses ends the request with the last
 * response or error.
 *
 * @example
 * ```ts
 * createClient({ baseURL, retryBudget: { ratio: 0.1 } })   // retries add at most ~10 % load
 * ```
 */
export interface RetryBudgetOptions {
  /** Retries allowed per request in the window (0-1). Default 0.2. */
  ratio?: number | undefined;
  /** Retries allowed per second regardless of traffic. Default 10. */
  minRetriesPerSecond?: number | undefined;
  /** Length of the window in ms. Default 10000. */
  window?: number | undefined;
}

/**
 * Bulkhead (`bulkhead` option): a cap on the client's concurrent requests. A request holds its slot
 * from the start of `request()` (plugins, attempts and retry waits included) until its response headers
 * arrive or it fails; extra requests wait in a bounded FIFO queue (cancelled by their `signal`).
 *
 * @example
 * ```ts
 * createClient({ baseURL, bulkhead: { maxConcurrent: 16, maxQueue: 100 } })
 * ```
 */
export interface BulkheadOptions {
  /** Most requests in flight at once. Required, integer >= 1. */
  maxConcurrent: number;
  /** Most requests waiting for a slot; one more gets {@link BulkheadRejectedError}. Default 1000. */
  maxQueue?: number | undefined;
}

/**
 * Pause on `Retry-After` (`pauseOnRetryAfter` option, on by default): a `429` or `503` carrying
 * `Retry-After` holds back new attempts to that origin, from every caller of the client, until the time
 * given (at most `maxPause`).
 *
 * @example
 * ```ts
 * createClient({ baseURL, pauseOnRetryAfter: { maxPause: 120_000 } })
 * ```
 */
export interface PauseOnRetryAfterOptions {
  /** Longest pause honoured, in ms; a longer `Retry-After` pauses this long. Default 60000. */
  maxPause?: number | undefined;
}

/** Resilience settings after validation, defaults filled in; `undefined` means off. */
export interface ResolvedResilience {
  /** The token bucket's settings, or the caller's own limiter. */
  rateLimit: Required<RateLimitOptions> | RateLimiter | undefined;
  circuitBreaker: Required<Omit<CircuitBreakerOptions, 'onStateChange'>> & Pick<CircuitBreakerOptions, 'onStateChange'> | undefined;
  retryBudget: Required<RetryBudgetOptions> | undefined;
  bulkhead: Required<BulkheadOptions> | undefined;
  pauseOnRetryAfter: Required<PauseOnRetryAfterOptions> | undefined;
}

/** The resilience options of `createClient`, as {@link resolveResilience} reads them. */
export interface ResilienceInput {
  rateLimit?: RateLimitOptions | RateLimiter | false;
  circuitBreaker?: CircuitBreakerOptions | boolean;
  retryBudget?: RetryBudgetOptions | boolean;
  bulkhead?: BulkheadOptions | false;
  pauseOnRetryAfter?: PauseOnRetryAfterOptions | boolean;
}

/** Defaults of the circuit breaker, retry budget and pause (see RESILIENCE.md). */
export const RESILIENCE_DEFAULTS = Object.freeze({
  rateLimit: Object.freeze({ burst: 1, maxQueue: 1000, failFast: false }),
  circuitBreaker: Object.freeze({
    consecutiveFailures: 5, failureRatio: 0.5, minimumRequests: 20, window: 10_000, openDuration: 10_000, halfOpenProbes: 1,
  }),
  retryBudget: Object.freeze({ ratio: 0.2, minRetriesPerSecond: 10, window: 10_000 }),
  bulkhead: Object.freeze({ maxQueue: 1000 }),
  pauseOnRetryAfter: Object.freeze({ maxPause: 60_000 }),
});

/** The keys each resilience object accepts, and the names other libraries use for them. */
const KEYS = {
  rateLimit: { known: ['requestsPerSecond', 'burst', 'maxQueue', 'failFast'], hints: { rps: 'requestsPerSecond', perSecond: 'requestsPerSecond', limit: 'requestsPerSecond', queueSize: 'maxQueue' } },
  circuitBreaker: {
    known: ['consecutiveFailures', 'failureRatio', 'minimumRequests', 'window', 'openDuration', 'halfOpenProbes', 'onStateChange'],
    hints: { threshold: 'consecutiveFailures', failureThreshold: 'consecutiveFailures', resetTimeout: 'openDuration', timeout: 'openDuration', volumeThreshold: 'minimumRequests', errorThresholdPercentage: 'failureRatio' },
  },
  retryBudget: { known: ['ratio', 'minRetriesPerSecond', 'window'], hints: { percent: 'ratio', budget: 'ratio' } },
  bulkhead: { known: ['maxConcurrent', 'maxQueue'], hints: { concurrency: 'maxConcurrent', limit: 'maxConcurrent', maxConcurrency: 'maxConcurrent', queueSize: 'maxQueue' } },
  pauseOnRetryAfter: { known: ['maxPause'], hints: { max: 'maxPause', maxWait: 'maxPause' } },
} as const;

/** A resilience object option, its keys checked like the top level (a typo is a ConfigError naming the path). */
function objectOption(option: keyof typeof KEYS, value: unknown): Record<string, unknown> {
  if (value === null || typeof value !== 'object') throw new ConfigError(option, 'must be an object or false');
  checkOptionKeys(option, value, KEYS[option].known, KEYS[option].hints);
  return value as Record<string, unknown>;
}

function positive(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new ConfigError(option, `must be a number > 0, got ${String(value)}`);
  return value;
}

function nonNegative(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new ConfigError(option, `must be a number >= 0, got ${String(value)}`);
  return value;
}

function integer(option: string, value: unknown, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new ConfigError(option, `must be an integer >= ${min}, got ${String(value)}`);
  return value;
}

function flag(option: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ConfigError(option, `must be a boolean, got ${typeof value}`);
  return value;
}

/** Validates the resilience options (a bad one throws {@link ConfigError}) and fills in defaults. */
export function resolveResilience(input: ResilienceInput): ResolvedResilience {
  const d = RESILIENCE_DEFAULTS;
  let rateLimit: ResolvedResilience['rateLimit'];
  if (isRateLimiter(input.rateLimit)) {
    rateLimit = input.rateLimit;
  } else if (input.rateLimit !== undefined && input.rateLimit !== false) {
    const o = objectOption('rateLimit', input.rateLimit);
    rateLimit = {
      requestsPerSecond: positive('rateLimit.requestsPerSecond', o.requestsPerSecond),
      burst: integer('rateLimit.burst', o.burst ?? d.rateLimit.burst, 1),
      maxQueue: integer('rateLimit.maxQueue', o.maxQueue ?? d.rateLimit.maxQueue, 0),
      failFast: flag('rateLimit.failFast', o.failFast ?? d.rateLimit.failFast),
    };
  }
  let circuitBreaker: ResolvedResilience['circuitBreaker'];
  if (input.circuitBreaker !== undefined && input.circuitBreaker !== false) {
    const o = input.circuitBreaker === true ? {} : objectOption('circuitBreaker', input.circuitBreaker);
    const ratio = positive('circuitBreaker.failureRatio', o.failureRatio ?? d.circuitBreaker.failureRatio);
    if (ratio > 1) throw new ConfigError('circuitBreaker.failureRatio', `must be at most 1, got ${ratio}`);
    if (o.onStateChange !== undefined && typeof o.onStateChange !== 'function') throw new ConfigError('circuitBreaker.onStateChange', 'must be a function');
    circuitBreaker = {
      consecutiveFailures: integer('circuitBreaker.consecutiveFailures', o.consecutiveFailures ?? d.circuitBreaker.consecutiveFailures, 1),
      failureRatio: ratio,
      minimumRequests: integer('circuitBreaker.minimumRequests', o.minimumRequests ?? d.circuitBreaker.minimumRequests, 1),
      window: positive('circuitBreaker.window', o.window ?? d.circuitBreaker.window),
      openDuration: positive('circuitBreaker.openDuration', o.openDuration ?? d.circuitBreaker.openDuration),
      halfOpenProbes: integer('circuitBreaker.halfOpenProbes', o.halfOpenProbes ?? d.circuitBreaker.halfOpenProbes, 1),
      onStateChange: o.onStateChange as CircuitBreakerOptions['onStateChange'],
    };
  }
  let retryBudget: ResolvedResilience['retryBudget'];
  if (input.retryBudget !== false) {
    const o = input.retryBudget === undefined || input.retryBudget === true ? {} : objectOption('retryBudget', input.retryBudget);
    retryBudget = {
      ratio: nonNegative('retryBudget.ratio', o.ratio ?? d.retryBudget.ratio),
      minRetriesPerSecond: nonNegative('retryBudget.minRetriesPerSecond', o.minRetriesPerSecond ?? d.retryBudget.minRetriesPerSecond),
      window: positive('retryBudget.window', o.window ?? d.retryBudget.window),
    };
  }
  let bulkhead: ResolvedResilience['bulkhead'];
  if (input.bulkhead !== undefined && input.bulkhead !== false) {
    const o = objectOption('bulkhead', input.bulkhead);
    bulkhead = {
      maxConcurrent: integer('bulkhead.maxConcurrent', o.maxConcurrent, 1),
      maxQueue: integer('bulkhead.maxQueue', o.maxQueue ?? d.bulkhead.maxQueue, 0),
    };
  }
  let pauseOnRetryAfter: ResolvedResilience['pauseOnRetryAfter'];
  if (input.pauseOnRetryAfter !== false) {
    const o = input.pauseOnRetryAfter === undefined || input.pauseOnRetryAfter === true ? {} : objectOption('pauseOnRetryAfter', input.pauseOnRetryAfter);
    pauseOnRetryAfter = { maxPause: nonNegative('pauseOnRetryAfter.maxPause', o.maxPause ?? d.pauseOnRetryAfter.maxPause) };
  }
  return { rateLimit, circuitBreaker, retryBudget, bulkhead, pauseOnRetryAfter };
}
