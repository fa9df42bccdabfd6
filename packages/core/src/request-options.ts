import type { DeadlineInit, RequestDeadline } from './deadline.js';
import type { HeadersInput } from './options.js';
import type { RetryOptions } from './retry.js';
import type { BodyInit } from './transport/types.js';
import type { QueryInit } from './url/query.js';

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
  method?: string;
  /** Path resolved against the base URL (SPEC 4.3), or an absolute URL. May carry a query string. */
  path?: string;
  /** Query parameters appended to the path's own (spaces as `%20`). */
  query?: QueryInit;
  /**
   * Headers for this request; they win over the client's. A record (`undefined` values are skipped), a
   * `Headers` instance or `[name, value]` pairs.
   */
  headers?: HeadersInput;
  /** Raw body. Strings and bytes can be retried; streams cannot. */
  body?: BodyInit;
  /** A value sent as JSON (sets `content-type: application/json` unless given). */
  json?: unknown;
  /** Cancels the whole request: attempts, retry waits and body reading. */
  signal?: AbortSignal;
  /** Per-attempt timeout in ms for this request, or false. */
  timeout?: number | false;
  /**
   * Total time for this request across attempts, waits and the body read: ms from now, an absolute
   * `Date`, or `false` to lift the client's. Past it: {@link DeadlineError}. A `signal` from
   * `AbortSignal.timeout()` acts as a deadline too.
   */
  deadline?: DeadlineInit;
  /** Retry settings for this request, merged over the client's; false disables. */
  retry?: Partial<RetryOptions> | false;
  /** Allow retrying a non-idempotent method (POST, PATCH) because the caller knows it is safe. */
  idempotent?: boolean;
  /** Override the client's `throwHttpErrors`. */
  throwHttpErrors?: boolean;
  /** Values plugins can read (`request.context`). */
  context?: Record<string, unknown>;
  /**
   * With a client `rateLimit`: reject with `RateLimitError` instead of waiting when no token is free
   * (overrides `rateLimit.failFast` for this request).
   */
  failFast?: boolean;
}

/** Options of the shortcut methods (`get`, `post`, ...): a request without method and path. */
export type ShortcutOptions = Omit<RequestOptions, 'method' | 'path'>;

/** One attempt as the client sends it (internal). */
export interface Attempt {
  /** The request's id (`PluginRequest.id`), carried by its events. */
  id: number;
  method: string;
  url: string;
  origin: string;
  headers: Record<string, string>;
  body: BodyInit | undefined;
  /** The request's `failFast`, when it set one. */
  failFast: boolean | undefined;
  /** The request's deadline, when it has one. */
  deadline: RequestDeadline | undefined;
}


let lastRequestId = 0;

/** A new request id, unique in the process (`PluginRequest.id`, `requestId` in events). */
export function nextRequestId(): number {
  return ++lastRequestId;
}
