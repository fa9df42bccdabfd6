/** One stored cookie. */
interface StoredCookie {
  name: string;
  value: string;
  path: string;
  /** `Date.now()` after which the cookie is gone; undefined for a session cookie. */
  expires: number | undefined;
  secure: boolean;
}

/** The directory of a request path: the default cookie path (RFC 6265 section 5.1.4). */
function defaultPath(pathname: string): string {
  if (!pathname.startsWith('/')) return '/';
  const slash = pathname.lastIndexOf('/');
  return slash <= 0 ? '/' : pathname.slice(0, slash);
}

/** RFC 6265 section 5.1.4 path-match. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/**
 * Cookies for exactly one origin (scheme, host and port): what an SAP gateway's session needs between
 * the CSRF token fetch and the writes that use the token. Cookies are host-only whatever their `Domain`
 * attribute says, so nothing stored here is ever offered to another origin; `Path`, `Max-Age`,
 * `Expires` and `Secure` are honoured (RFC 6265 section 5). Values never appear in errors or events.
 *
 * @example
 * ```ts
 * const jar = new CookieStore('https://gw.example.com')
 * jar.store('https://gw.example.com/sap/opu/odata/', ['SAP_SESSIONID=abc; Path=/; HttpOnly'])
 * jar.header('https://gw.example.com/sap/opu/odata/X') // 'SAP_SESSIONID=abc'
 * ```
 */
export class CookieStore {
  /** The one origin this store serves. */
  readonly origin: string;
  private cookies: StoredCookie[] = [];

  constructor(origin: string) {
    this.origin = new URL(origin).origin;
  }

  /** Number of cookies held (expired ones included until the next read). */
  get size(): number {
    return this.cookies.length;
  }

  /** Stores the `Set-Cookie` values of a response to `url`; ignored when `url` is on another origin. */
  store(url: string, setCookie: readonly string[], now = Date.now()): void {
    const target = new URL(url);
    if (target.origin !== this.origin) return;
    for (const line of setCookie) {
      const cookie = parseSetCookie(line, target.pathname, now);
      if (cookie === undefined) continue;
      this.cookies = this.cookies.filter((c) => c.name !== cookie.name || c.path !== cookie.path);
      if (cookie.expires === undefined || cookie.expires > now) this.cookies.push(cookie);
    }
  }

  /** The `Cookie` header value for a request to `url`, or undefined when no cookie applies. */
  header(url: string, now = Date.now()): string | undefined {
    const target = new URL(url);
    if (target.origin !== this.origin) return undefined;
    this.cookies = this.cookies.filter((c) => c.expires === undefined || c.expires > now);
    const secure = target.protocol === 'https:';
    // RFC 6265 section 5.4: longer paths first.
    const matching = this.cookies
      .filter((c) => (secure || !c.secure) && pathMatches(target.pathname, c.path))
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length === 0 ? undefined : matching.map((c) => `${c.name}=${c.value}`).join('; ');
  }

  /** Forgets every cookie (a new session starts with the next response that sets one). */
  clear(): void {
    this.cookies = [];
  }
}

function parseSetCookie(line: string, requestPath: string, now: number): StoredCookie | undefined {
  const [pair = '', ...attributes] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq <= 0) return undefined;
  const cookie: StoredCookie = {
    name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim(), path: defaultPath(requestPath), expires: undefined, secure: false,
  };
  let maxAge: number | undefined;
  for (const attribute of attributes) {
    const at = attribute.indexOf('=');
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const value = at < 0 ? '' : attribute.slice(at + 1).trim();
    if (key === 'path' && value.startsWith('/')) cookie.path = value;
    else if (key === 'secure') cookie.secure = true;
    else if (key === 'max-age' && /^-?\d+$/.test(value)) maxAge = Number(value);
    else if (key === 'expires') {
      const t = Date.parse(value);
      if (!Number.isNaN(t)) cookie.expires = t;
    }
  }
  // RFC 6265 section 5.3 step 3: Max-Age wins over Expires.
  if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? now - 1 : now + maxAge * 1000;
  return cookie;
}
