import { CREDENTIAL_HEADERS, describeRequest, redactHeaders, redactText, redactURL } from './redact.js';

/**
 * Base class of every error sluice throws. Catch it to handle all sluice failures at once;
 * `cause` carries the underlying error where there is one.
 *
 * @example
 * ```ts
 * try { await client.get('users') } catch (err) {
 *   if (err instanceof SluiceError) console.error(err.message)
 * }
 * ```
 */
export class SluiceError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  /**
   * What `JSON.stringify(error)` shows: `name`, `message`, the error's own fields (already redacted) and
   * its `cause` (name and message, or the cause's own `toJSON` when it is a sluice error).
   */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) out[key] = value;
    const cause: unknown = this.cause;
    if (cause instanceof SluiceError) out['cause'] = cause.toJSON();
    else if (cause instanceof Error) out['cause'] = { name: cause.name, message: redactText(cause.message) };
    return out;
  }
}

/**
 * Invalid options given to a constructor or a request: thrown at once, with a message that names the
 * option (for example `ConfigError: retry.maxAttempts must be an integer >= 1, got 0`).
 */
export class ConfigError extends SluiceError {
  /** The option path at fault, such as `retry.maxAttempts`. */
  readonly option: string;
  constructor(option: string, problem: string, options?: { cause?: unknown }) {
    super(`${option} ${problem}`, options);
    this.option = option;
  }
}

/**
 * The server answered with an error status (400 and above) after retries were spent. Carries the
 * status, method, a redacted URL, the response headers (without `set-cookie`) and the body (at most
 * {@link HttpError.BODY_LIMIT} bytes, redacted: see `redactText`); never the request's `Authorization`
 * header, cookies or URL credentials.
 *
 * @example
 * ```ts
 * try { await client.get('orders/42') } catch (err) {
 *   if (err instanceof HttpError && err.status === 404) return undefined
 *   if (err instanceof HttpError) console.error(err.status, err.body ?? err.bodyText)
 *   throw err
 * }
 * ```
 */
export class HttpError extends SluiceError {
  /** HTTP status code of the response. */
  readonly status: number;
  /** Request method. */
  readonly method: string;
  /** Request URL with credentials and sensitive query values redacted. */
  readonly url: string;
  /** Response headers, lower-case names, `set-cookie` removed, credential headers (`CREDENTIAL_HEADERS`) redacted. */
  readonly headers: Readonly<Record<string, string>>;
  /** The response body as text, at most {@link HttpError.BODY_LIMIT} bytes, redacted. */
  readonly bodyText: string;
  /** Whether the body was longer than {@link HttpError.BODY_LIMIT} and cut. */
  readonly bodyTruncated: boolean;
  /** At most {@link HttpError.EXCERPT_LIMIT} characters of {@link HttpError.bodyText}. */
  readonly bodyExcerpt: string;

  /** Longest body excerpt kept on the error. */
  static readonly EXCERPT_LIMIT = 1024;
  /** Most body bytes kept on the error (64 KiB). */
  static readonly BODY_LIMIT = 64 * 1024;

  constructor(init: {
    status: number;
    method: string;
    url: string;
    headers: Readonly<Record<string, string>>;
    /** The body read so far (redacted here); `bodyText` is taken as a synonym. */
    bodyExcerpt: string;
    bodyText?: string | undefined;
    bodyTruncated?: boolean | undefined;
    cause?: unknown;
  }) {
    const url = redactURL(init.url);
    super(`${describeRequest(init.method, init.url)} failed with status ${init.status}`, { cause: init.cause });
    const text = redactText(init.bodyText ?? init.bodyExcerpt);
    const cut = text.length > HttpError.BODY_LIMIT;
    this.status = init.status;
    this.method = init.method;
    this.url = url;
    this.headers = redactHeaders(init.headers, CREDENTIAL_HEADERS);
    this.bodyText = cut ? text.slice(0, HttpError.BODY_LIMIT) : text;
    this.bodyTruncated = cut || init.bodyTruncated === true;
    this.bodyExcerpt = text.length > HttpError.EXCERPT_LIMIT ? text.slice(0, HttpError.EXCERPT_LIMIT) + '…' : text;
  }

  /**
   * The body parsed as JSON when it is complete JSON (already redacted), else undefined. Read the
   * server's own error details from it.
   */
  get body(): unknown {
    if (this.bodyTruncated || !/^\s*[[{"]/.test(this.bodyText)) return undefined;
    try {
      return JSON.parse(this.bodyText);
    } catch {
      return undefined;
    }
  }
}

/**
 * An attempt took longer than the configured `timeout` (waiting for the response headers, or idle
 * between two body chunks). Distinct from {@link AbortError}, which means the caller cancelled.
 */
export class TimeoutError extends SluiceError {
  /** The timeout that elapsed, in milliseconds. */
  readonly timeout: number;
  constructor(method: string, url: string, timeout: number, options?: { cause?: unknown }, detail = `timed out after ${timeout} ms`) {
    super(`${describeRequest(method, url)} ${detail}`, options);
    this.timeout = timeout;
  }
}

/**
 * The caller's `AbortSignal` cancelled the request (including any retry wait). `cause` is the
 * signal's reason.
 */
export class AbortError extends SluiceError {
  constructor(method: string, url: string, options?: { cause?: unknown }) {
    super(`${describeRequest(method, url)} was aborted`, options);
  }
}

/**
 * The connection failed: refused, reset, closed early, DNS failure or a TLS error. `cause` is the
 * transport's own error; `code` its error code when it has one (such as `ECONNREFUSED`).
 */
export class NetworkError extends SluiceError {
  /** The underlying error code, when known. */
  readonly code: string | undefined;
  constructor(method: string, url: string, options?: { cause?: unknown }) {
    const code = errorCode(options?.cause);
    super(`${describeRequest(method, url)} failed: ${code ?? describe(options?.cause)}`, options);
    this.code = code;
  }
}

/**
 * A response body could not be decoded as asked: invalid JSON, an unexpected content type, or a body
 * larger than `maxResponseBytes`. Carries the status and a short excerpt of what arrived; message and
 * excerpt are redacted (build the message's URL with `describeRequest`).
 */
export class DecodeError extends SluiceError {
  /** HTTP status of the response whose body failed. */
  readonly status: number;
  /** At most 200 characters of the body that failed to decode. */
  readonly bodyExcerpt: string;
  constructor(message: string, status: number, bodyExcerpt = '', options?: { cause?: unknown }) {
    super(redactText(message), options);
    this.status = status;
    // Redact before cutting, so a cut cannot split a name from its value; a large body is only scanned at its start.
    this.bodyExcerpt = redactText(bodyExcerpt.slice(0, 4096)).slice(0, 200);
  }
}

/**
 * A redirect chain was longer than `maxRedirects`, or pointed to a scheme other than http(s). The message
 * names the request with `describeRequest` (URL redacted).
 */
export class RedirectError extends SluiceError {
  constructor(method: string, url: string, problem: string, options?: { cause?: unknown }) {
    super(`${describeRequest(method, url)}: ${problem}`, options);
  }
}

function errorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = current.cause;
  }
  return undefined;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : 'connection error';
}

/**
 * The circuit breaker of an origin is open (or half-open with every probe slot taken), so the request was
 * rejected without touching the server. `retryAt` says when the breaker lets the next probe through.
 *
 * @example
 * ```ts
 * try { await client.get('orders') } catch (err) {
 *   if (err instanceof CircuitOpenError) console.warn(`${err.origin} is down; retry in ${err.retryAfter} ms`)
 * }
 * ```
 */
export class CircuitOpenError extends SluiceError {
  /** The origin (`scheme://host[:port]`) whose circuit is open. */
  readonly origin: string;
  /** `'open'`, or `'half-open'` when the probes in flight have not answered yet. */
  readonly state: 'open' | 'half-open';
  /** Epoch ms (like `Date.now()`) from which the breaker lets a probe through again. */
  readonly retryAt: number;
  /** Milliseconds from the rejection until `retryAt` (0 when probes are in flight). */
  readonly retryAfter: number;
  constructor(origin: string, state: 'open' | 'half-open', retryAfter: number, reason: string) {
    const wait = Math.max(0, Math.ceil(retryAfter));
    const retryAt = Date.now() + wait;
    const when = state === 'open'
      ? `it lets a probe through in ${wait} ms (at ${new Date(retryAt).toISOString()})`
      : 'its probes are in flight; try again once they answer';
    super(`Circuit breaker for ${origin} is ${state} (${reason}): request rejected without sending; ${when}`);
    this.origin = origin;
    this.state = state;
    this.retryAt = retryAt;
    this.retryAfter = wait;
  }
}

/**
 * The client-side rate limiter refused a request: either `rateLimit.failFast` is set and no token was
 * free, or the wait queue already held `rateLimit.maxQueue` requests. Nothing was sent.
 */
export class RateLimitError extends SluiceError {
  /** Why: `'no-token'` (fail-fast) or `'queue-full'`. */
  readonly reason: 'no-token' | 'queue-full';
  /** Milliseconds until the next token would be free, when known. */
  readonly retryAfter: number;
  constructor(reason: 'no-token' | 'queue-full', retryAfter: number, limit: string) {
    const wait = Math.max(0, Math.ceil(retryAfter));
    super(reason === 'no-token'
      ? `Rate limit ${limit} reached and failFast is set: no token free for ${wait} ms`
      : `Rate limit ${limit}: wait queue is full; request rejected without sending`);
    this.reason = reason;
    this.retryAfter = wait;
  }
}

/**
 * The bulkhead was full: `bulkhead.maxConcurrent` requests were in flight and `bulkhead.maxQueue` more
 * were already waiting. Nothing was sent.
 */
export class BulkheadRejectedError extends SluiceError {
  /** The configured concurrency cap. */
  readonly maxConcurrent: number;
  /** The configured queue length. */
  readonly maxQueue: number;
  constructor(maxConcurrent: number, maxQueue: number) {
    super(`Bulkhead full: ${maxConcurrent} requests in flight and ${maxQueue} waiting; request rejected without sending`);
    this.maxConcurrent = maxConcurrent;
    this.maxQueue = maxQueue;
  }
}
