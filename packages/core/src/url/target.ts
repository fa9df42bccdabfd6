import { ConfigError } from '../errors.js';

/** Where a transport sends a request: the origin and the path with its query (fragment removed). */
export interface Target {
  origin: string;
  path: string;
}

const SAFE_PATH = /^[\x21-\x22\x24-\x7e]*$/;

// An origin already in the form WHATWG URL would give it: lower-case http(s), no user-info, no default port.
const PLAIN_ORIGIN = /^(https?):\/\/([a-z0-9.-]+|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/**
 * Splits an absolute URL whose origin is already normal and whose path and query need no encoding,
 * keeping them byte for byte (a server's next link is followed exactly, `'` stays `'`).
 */
function splitPlain(url: string): Target | undefined {
  const slashes = url.indexOf('://');
  if (slashes < 0) return undefined;
  let end = slashes + 3;
  while (end < url.length && url[end] !== '/' && url[end] !== '?' && url[end] !== '#') end++;
  const origin = url.slice(0, end);
  const m = PLAIN_ORIGIN.exec(origin);
  if (m === null) return undefined;
  if (m[3] !== undefined && (m[3] === (m[1] === 'http' ? '80' : '443') || m[3].startsWith('0'))) return undefined;
  const hash = url.indexOf('#', end);
  let path = hash < 0 ? url.slice(end) : url.slice(end, hash);
  if (path === '' || path.startsWith('?')) path = '/' + path;
  if (!SAFE_PATH.test(path) || path.includes('\\')) return undefined;
  return { origin, path };
}

/**
 * Splits an absolute URL into origin and path. URLs that start with `knownOrigin` and need no
 * normalisation take a fast path without parsing; anything else goes through WHATWG URL parsing, which
 * percent-encodes spaces and non-ASCII and normalises the origin. Only http and https are accepted.
 */
export function toTarget(url: string, knownOrigin: string | undefined): Target {
  if (knownOrigin !== undefined && url.startsWith(knownOrigin)) {
    const next = url.charCodeAt(knownOrigin.length);
    if (next === 47 /* / */ || next === 63 /* ? */) {
      const hash = url.indexOf('#', knownOrigin.length);
      let path = hash < 0 ? url.slice(knownOrigin.length) : url.slice(knownOrigin.length, hash);
      if (next === 63) path = '/' + path;
      if (SAFE_PATH.test(path)) return { origin: knownOrigin, path };
    }
  }
  const direct = splitPlain(url);
  if (direct !== undefined) return direct;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new ConfigError('path', `does not form a valid URL`, { cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError('path', `must resolve to an http(s) URL, got ${parsed.protocol}`);
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError('path', 'must not contain credentials: send them in a header or with a plugin');
  }
  return { origin: parsed.origin, path: parsed.pathname + parsed.search };
}
