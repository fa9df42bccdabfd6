import { removeDotSegmentsBelowBase } from './dot-segments.js';
import { resolveReference } from './rfc3986.js';

/**
 * How request paths are joined to the base URL (SPEC 4.3).
 *
 * - `Auto` (default): `API` when the base URL looks like an API base ({@link isAPIBase}), else `RFC3986`.
 * - `RFC3986`: RFC 3986 reference resolution; a path starting with `/` replaces the base path.
 * - `API`: the path is always appended to the base path, with exactly one `/` between them.
 *
 * @example
 * ```ts
 * createClient({ baseURL: 'https://host/custom', urlNormalization: URLNormalization.API })
 * ```
 */
export const URLNormalization = {
  Auto: 'auto',
  RFC3986: 'rfc3986',
  API: 'api',
} as const;

/** One of the {@link URLNormalization} values. */
export type URLNormalization = (typeof URLNormalization)[keyof typeof URLNormalization];

/** The strategy a resolution used: `'api'` (append) or `'rfc3986'` (reference resolution). */
export type ResolutionStrategy = 'api' | 'rfc3986';

const API_PREFIXES = [
  '/api', '/v1', '/v2', '/v3', '/v4', '/v5', '/odata', '/rest', '/graphql', '/soap', '/sap', '/data',
  '/service', '/services',
];

/** Matches a reference that starts with a scheme (an absolute URL). */
export const ABSOLUTE = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** Path of a base URL as written (up to `?` or `#`), or undefined when the base does not parse. */
function basePath(baseURL: string): string | undefined {
  if (!URL.canParse(baseURL)) return undefined;
  const afterScheme = baseURL.indexOf('//');
  if (afterScheme < 0) return new URL(baseURL).pathname;
  let start = afterScheme + 2;
  while (start < baseURL.length && !'/?#'.includes(baseURL[start]!)) start++;
  let end = start;
  while (end < baseURL.length && baseURL[end] !== '?' && baseURL[end] !== '#') end++;
  return baseURL.slice(start, end);
}

/**
 * Tells whether `baseURL` is detected as an API base (SPEC 4.3 rule 4): its path starts with one of
 * `/api /v1 ... /v5 /odata /rest /graphql /soap /sap /data /service /services` (a plain prefix, so
 * `/apiary` counts), or contains more than one `/`. A host-only base, a `/` path, or a base that does not
 * parse is not an API base. No network call is made.
 *
 * @example
 * ```ts
 * isAPIBase('https://h/v1')        // true
 * isAPIBase('https://h/shop/cart') // true  (more than one slash)
 * isAPIBase('https://h/custom')    // false (set URLNormalization.API yourself)
 * ```
 */
export function isAPIBase(baseURL: string): boolean {
  const path = basePath(baseURL);
  if (path === undefined || path === '' || path === '/') return false;
  for (const prefix of API_PREFIXES) if (path.startsWith(prefix)) return true;
  let slashes = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47 && ++slashes > 1) return true;
  return false;
}

/** Options {@link resolveURL} reads: the same names as the client options. */
export interface ResolveOptions {
  /** Base address that request paths are resolved against. */
  baseURL: string;
  /** Joining strategy; `URLNormalization.Auto` when omitted. */
  urlNormalization?: URLNormalization | undefined;
}

/** Result of {@link resolveURL}. */
export interface ResolvedURL {
  /** The absolute URL a request to `path` goes to. */
  url: string;
  /** Which rule produced it. */
  strategy: ResolutionStrategy;
}

/** The strategy `Auto` picks for a base, or the one forced. */
export function strategyFor(options: ResolveOptions): ResolutionStrategy {
  const mode = options.urlNormalization ?? URLNormalization.Auto;
  if (mode === URLNormalization.API) return 'api';
  if (mode === URLNormalization.RFC3986) return 'rfc3986';
  return isAPIBase(options.baseURL) ? 'api' : 'rfc3986';
}

/**
 * Resolves a request path against a base URL exactly as the client does, without any network call:
 * a debugging aid (SPEC 4.1). Absolute URLs given as `path` are returned unchanged.
 *
 * @example
 * ```ts
 * resolveURL({ baseURL: 'https://h/v1' }, '/users')
 * // { url: 'https://h/v1/users', strategy: 'api' }
 * resolveURL({ baseURL: 'https://h/app/' , urlNormalization: URLNormalization.RFC3986 }, '/users')
 * // { url: 'https://h/users', strategy: 'rfc3986' }
 * ```
 */
export function resolveURL(options: ResolveOptions, path: string): ResolvedURL {
  const strategy = strategyFor(options);
  if (strategy === 'rfc3986') return { url: resolveReference(options.baseURL, path), strategy };
  const url = ABSOLUTE.test(path) ? path : joinAPI(options.baseURL, path);
  return { url, strategy };
}

/** Splits a base URL into what precedes its query, its query (without `?`) and fragment (with `#`). */
export function splitBase(baseURL: string): { head: string; query: string; fragment: string } {
  const hash = baseURL.indexOf('#');
  const fragment = hash < 0 ? '' : baseURL.slice(hash);
  const beforeHash = hash < 0 ? baseURL : baseURL.slice(0, hash);
  const q = beforeHash.indexOf('?');
  return {
    head: q < 0 ? beforeHash : beforeHash.slice(0, q),
    query: q < 0 ? '' : beforeHash.slice(q + 1),
    fragment,
  };
}

/**
 * API-mode join (SPEC 4.3 rules 5 and 6): the base's host-and-path gets one trailing slash, the path's
 * leading slashes go, the base's query comes first and the path's query after it, and a fragment in the
 * path wins over the base's. Dot segments of the path are removed (RFC 3986 section 5.2.4); one that
 * would climb above the base path throws `ConfigError`.
 */
export function joinAPI(baseURL: string | ReturnType<typeof splitBase>, path: string): string {
  const base = typeof baseURL === 'string' ? splitBase(baseURL) : baseURL;
  const head = base.head.endsWith('/') ? base.head : base.head + '/';
  let start = 0;
  while (start < path.length && path.charCodeAt(start) === 47) start++;
  const pathHash = path.indexOf('#', start);
  const pathNoFragment = pathHash < 0 ? path.slice(start) : path.slice(start, pathHash);
  const fragment = pathHash < 0 ? base.fragment : path.slice(pathHash);
  const q = pathNoFragment.indexOf('?');
  // Dot segments go after joining, and never above the base path (a user value cannot reach another API).
  const relPath = removeDotSegmentsBelowBase(q < 0 ? pathNoFragment : pathNoFragment.slice(0, q));
  const relQuery = q < 0 ? '' : pathNoFragment.slice(q + 1);
  const query = base.query && relQuery ? `${base.query}&${relQuery}` : base.query || relQuery;
  return head + relPath + (query ? '?' + query : '') + fragment;
}
