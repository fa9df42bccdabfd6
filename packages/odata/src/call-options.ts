// The per-call option objects of the OData client, checked as core checks its options: an unknown key
// (a typo such as `signl`, `maxPagesize`) is a ConfigError naming the method, the path it was called on
// and the nearest known key, before anything is sent.
import { checkOptionKeys, ConfigError } from '@sluice/core';

const REQUEST = ['signal', 'headers', 'timeout', 'deadline'] as const;
const WRITE = [...REQUEST, 'tunnel'] as const;

/** Every key each kind of per-call options accepts. @internal */
export const CALL_OPTION_KEYS = {
  read: REQUEST,
  stream: [...REQUEST, 'prefetch', 'maxPageSize', 'pageRetries', 'maxPages', 'maxRecordBytes', 'maxPageBytes'],
  pages: [...REQUEST, 'maxPageSize', 'pageRetries', 'maxPages', 'maxRecordBytes', 'maxPageBytes'],
  create: [...WRITE, 'prefer'],
  update: [...WRITE, 'prefer', 'etag'],
  delete: [...WRITE, 'etag'],
  action: [...WRITE, 'async', 'etag'],
  function: [...WRITE, 'aliases'],
  batchCreate: ['prefer', 'headers'],
  batchUpdate: ['prefer', 'etag', 'headers'],
  batchDelete: ['etag', 'headers'],
  batchGet: ['headers'],
  batchSend: [...REQUEST, 'format', 'maxOperations', 'dependsOnGroups'],
  poller: ['pollInterval', 'maxPolls', 'fetchResult'],
  signalOnly: ['signal'],
} as const satisfies Record<string, readonly string[]>;

/** Names other OData clients use for these options. */
const HINTS: Readonly<Record<string, string>> = {
  abortSignal: 'signal', timeoutMs: 'timeout', ifMatch: 'etag', eTag: 'etag', pageSize: 'maxPageSize', top: 'maxPageSize',
};

/**
 * Checks the options of one call: an object (or undefined), every key known, `headers` an object of
 * strings. `method` (`get()`) and `where` (the path, such as `Products(1)`) name the call in the error.
 * @internal
 */
export function checkCallOptions(method: string, where: string | undefined, options: unknown, kind: keyof typeof CALL_OPTION_KEYS): void {
  if (options === undefined) return;
  const of = `${method}${where ? ` on ${where}` : ''}`;
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigError('options', `of ${of} must be an object, got ${options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options}`);
  }
  try {
    checkOptionKeys('', options, CALL_OPTION_KEYS[kind], HINTS);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.option, `${error.message.slice(error.option.length + 1)} (options of ${of})`);
  }
  const headers = (options as { headers?: unknown }).headers;
  if (headers === undefined) return;
  if (headers === null || typeof headers !== 'object' || Array.isArray(headers)) {
    throw new ConfigError('headers', `must be an object of header names to strings (options of ${of})`);
  }
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && typeof value !== 'string') throw new ConfigError(`headers.${name}`, `must be a string, got ${value === null ? 'null' : typeof value} (options of ${of})`);
  }
}
