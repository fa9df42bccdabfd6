/** Retry settings (SPEC 2.4 `RetryConfig`), client-wide or per request. */
export interface RetryOptions {
  /** Attempts in total, the first one included. `1` disables retrying. Default 3. */
  maxAttempts: number;
  /** Base of the exponential backoff in ms: the n-th retry waits about `waitBase * 2^(n-1)`. Default 200. */
  waitBase: number;
  /** Longest wait between two attempts, in ms, for backoff and `Retry-After` alike. Default 30000. */
  maxWait: number;
  /** Statuses that are retried. Default `[408, 425, 429, 500, 502, 503, 504]`. */
  retryableStatus: readonly number[];
  /**
   * Methods retried without asking. Default the idempotent ones: GET, HEAD, OPTIONS, PUT, DELETE, TRACE.
   * Other methods are retried only when the request says `idempotent: true`.
   */
  methods: readonly string[];
  /** Also retry after network errors and timeouts. Default true. */
  retryOnNetworkError: boolean;
}

/** Defaults of {@link RetryOptions}. */
export const DEFAULT_RETRY: Readonly<RetryOptions> = Object.freeze({
  maxAttempts: 3,
  waitBase: 200,
  maxWait: 30_000,
  retryableStatus: Object.freeze([408, 425, 429, 500, 502, 503, 504]),
  methods: Object.freeze(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE']),
  retryOnNetworkError: true,
});

/**
 * Wait before retry number `retry` (1 for the first retry): exponential backoff with "equal jitter",
 * uniformly between half and all of `min(maxWait, waitBase * 2^(retry-1))`. Never below half the backoff,
 * so retries never run in a tight loop.
 */
export function backoffDelay(retry: number, options: Pick<RetryOptions, 'waitBase' | 'maxWait'>, random = Math.random): number {
  const ceiling = Math.min(options.maxWait, options.waitBase * 2 ** (retry - 1));
  return ceiling / 2 + random() * (ceiling / 2);
}

/**
 * Parses a `Retry-After` header (RFC 9110 section 10.2.3): delay-seconds or an HTTP date. Returns the
 * wait in ms (0 for a date in the past), or undefined when absent or malformed.
 */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Otherwise only an HTTP-date (it names a weekday), not whatever Date.parse would accept.
  if (!/^[A-Za-z]{3},/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
