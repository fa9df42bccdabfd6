import type { RequestDeadline } from './deadline.js';
import { checkOptionKeys } from './option-keys.js';
import type { RetryOptions } from './retry.js';
import type { BodyInit, TransportRequest } from './transport/types.js';
import type { RequestOptions } from './types.js';

/**
 * Every key {@link RequestOptions} accepts (a new option fails to compile until it is added here). The
 * shortcut methods accept the same keys; their own `method` and `path` win over any in the options.
 */
const REQUEST_OPTION_KEYS = Object.keys({
  method: true, path: true, query: true, headers: true, body: true, json: true, signal: true, timeout: true, deadline: true,
  retry: true, idempotent: true, throwHttpErrors: true, context: true, failFast: true, maxRedirects: true,
} satisfies Record<keyof RequestOptions, true>);
const KNOWN_REQUEST_KEYS: ReadonlySet<string> = new Set(REQUEST_OPTION_KEYS);

/** Names other HTTP clients use for our request options. */
const REQUEST_OPTION_HINTS: Readonly<Record<string, string>> = {
  url: 'path', uri: 'path', params: 'query', searchParams: 'query', qs: 'query', data: 'json', payload: 'body',
  retries: 'retry', maxRetries: 'retry', abortSignal: 'signal', totalTimeout: 'deadline', responseType: 'json (client.getJSON)',
};

/**
 * Refuses a request option key that {@link RequestOptions} does not know (`timout`, `params`), with the
 * nearest valid key, like the client options. Costs one set lookup per given key when all are known.
 */
export function checkRequestKeys(init: object): void {
  for (const key in init) {
    if (!KNOWN_REQUEST_KEYS.has(key)) checkOptionKeys('', init, REQUEST_OPTION_KEYS, REQUEST_OPTION_HINTS);
  }
}

/**
 * One attempt as the client sends it (internal). It carries every field of a {@link TransportRequest}, so
 * it goes to the transport as it is, and what the attempt loop needs between attempts.
 */
export interface Attempt extends TransportRequest {
  /** The request's id (`PluginRequest.id`), carried by its events. */
  readonly id: number;
  /** The absolute URL (`origin` + `path`, plus any fragment), as events and errors name it. */
  readonly url: string;
  /** Lower-case header names. Shared with the client's defaults when nothing changes them: never mutate. */
  readonly headers: Record<string, string>;
  /** The request's `failFast`, when it set one. */
  readonly failFast: boolean | undefined;
  /** The request's deadline, when it has one. */
  readonly deadline: RequestDeadline | undefined;
  /** The request's retry settings. */
  readonly retry: RetryOptions;
  /** Attempts this request may make: 1 when it cannot retry (retry off, a method not retried, a stream body). */
  readonly maxAttempts: number;
  /** Redirects this request follows: its `maxRedirects`, else the client's. */
  readonly maxRedirects: number;
}

let lastRequestId = 0;

/** A new request id, unique in the process (`PluginRequest.id`, `requestId` in events). */
export function nextRequestId(): number {
  return ++lastRequestId;
}

/** Whether a body can be sent again (a retry, a plugin's resend): none, a string or bytes; a stream cannot. */
export function isReplayable(body: BodyInit | undefined): boolean {
  return body === undefined || typeof body === 'string' || body instanceof Uint8Array;
}
