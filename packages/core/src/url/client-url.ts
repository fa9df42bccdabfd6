// How the client turns a request's path into a URL against its base (SPEC 4.3), including the fast join of
// plain relative paths to an API-mode base.
import { ConfigError } from '../errors.js';
import { redactURL } from '../redact.js';
import { appendQuery, serializeQuery, type QueryInit } from './query.js';
import { ABSOLUTE, joinAPI, type ResolutionStrategy, type splitBase } from './resolve.js';
import { resolveReference } from './rfc3986.js';
import { toTarget } from './target.js';

/** A base URL split as {@link splitBase} splits it. */
export type SplitBase = ReturnType<typeof splitBase>;

/**
 * Whether `path` joins an API base by plain concatenation: no query, fragment, percent sign, backslash,
 * colon (a scheme), leading slash or dot segment, and only characters a request target carries as they are.
 */
export function isPlainRelative(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x23 /* # */ || c === 0x25 /* % */ || c === 0x3a /* : */ || c === 0x3f /* ? */ || c === 0x5c /* \ */) return false;
    if ((c === 0x2e /* . */ || c === 0x2f /* / */) && (i === 0 || path.charCodeAt(i - 1) === 0x2f)) return false;
  }
  return true;
}

/** The base as URL and request target when plain relative paths can be appended to it (API mode, nothing after the path). */
export function apiJoinOf(
  base: SplitBase | undefined, strategy: ResolutionStrategy, baseOrigin: string | undefined,
): { url: string; path: string } | undefined {
  if (base === undefined || strategy !== 'api' || base.query !== '' || base.fragment !== '') return undefined;
  const url = joinAPI(base, '');
  if (!url.startsWith(baseOrigin + '/')) return undefined;
  const target = toTarget(url, baseOrigin);
  // Only when the target is the URL's own tail (no encoding or normalisation happened).
  return target.origin + target.path === url ? { url, path: target.path } : undefined;
}

/** The absolute URL of a request's `path` and `query` against the client's base (or `path` itself without one). */
export function requestURL(
  base: SplitBase | undefined, strategy: ResolutionStrategy, baseURL: string | undefined, path: string, query: QueryInit | undefined,
): string {
  if (typeof path !== 'string') throw new ConfigError('path', 'must be a string');
  let url: string;
  if (base === undefined) {
    if (!ABSOLUTE.test(path)) throw new ConfigError('path', `must be an absolute URL when the client has no baseURL, got ${JSON.stringify(redactURL(path))}`);
    url = path;
  } else if (strategy === 'api') url = ABSOLUTE.test(path) ? path : joinAPI(base, path);
  else url = resolveReference(baseURL!, path);
  return query === undefined ? url : appendQuery(url, serializeQuery(query));
}
