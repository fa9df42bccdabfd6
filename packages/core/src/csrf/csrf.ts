import type { Client } from '../client.js';
import { AbortError, ConfigError } from '../errors.js';
import { checkOptionKeys } from '../option-keys.js';
import type { Plugin, PluginRequest, PluginVerdict } from '../types.js';
import { redactURL } from '../redact.js';
import type { SluiceResponse } from '../response.js';
import { CookieStore } from './cookie-store.js';
import { CsrfTokenError } from './errors.js';

declare module '../events.js' {
  interface SluiceEventMap {
    /** A CSRF token was fetched for `origin` (`method`: HEAD, or GET where HEAD gave none). Never the token. */
    'csrf.fetched': { origin: string; method: string; status: number };
    /**
     * A write to `url` (redacted) was refused for its CSRF token: `403` with `X-CSRF-Token: Required`, or a
     * `403` whose body says `CSRF token validation failed` (SAP Gateway where the header is lost); `retrying`
     * says whether it is sent again.
     */
    'csrf.rejected': { origin: string; method: string; url: string; retrying: boolean };
  }
}

/** Options of {@link csrf}. */
export interface CsrfOptions {
  /**
   * `'auto'` (default): send writes without a token until the server answers one with `403` and
   * `X-CSRF-Token: Required`, then fetch, retry, and fetch before every later write. `'always'`: fetch
   * before the first write.
   */
  mode?: 'auto' | 'always' | undefined;
  /** Where the token is fetched (HEAD, then GET where HEAD gives none). Default: the client's base URL. */
  fetchURL?: string | undefined;
  /**
   * Keep the session cookies the gateway binds its token to (default true: a {@link CookieStore} for
   * the fetch URL's origin). Pass a store to share it, or false when cookies are handled elsewhere.
   */
  cookies?: boolean | CookieStore | undefined;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const REQUIRED = /^\s*required\s*$/i;
/** What SAP Gateway writes in the body of a 403 for a missing or stale token (text or an XML/JSON error message). */
const TOKEN_FAILED = /CSRF token validation failed/i;
/** The most of a 403 body looked at for {@link TOKEN_FAILED}: the gateway's answer is short; a longer body is another refusal. */
const PEEK_BYTES = 4096;
const OPTION_KEYS = ['mode', 'fetchURL', 'cookies'];

interface CachedToken { promise: Promise<string>; token: string | undefined }
interface RequestState { callerCookie: string | undefined; used: string | undefined; retried: boolean }

/**
 * The CSRF plugin (SPEC 3.3), for SAP ABAP gateways and any API that wants `X-CSRF-Token` on writes.
 * Before a write (any method but GET, HEAD, OPTIONS, TRACE) to the service's origin it attaches a token
 * fetched once with `X-CSRF-Token: Fetch` (concurrent writers share one fetch) and the session cookies
 * that came with it; reads get neither, and nothing goes to another origin. A `403` with
 * `X-CSRF-Token: Required`, or a `403` whose body (at most its first 4 KiB, peeked, so the caller still reads
 * it whole) says `CSRF token validation failed`, drops the cached token, fetches a new one once for all
 * writers (refused writes wait for that one fetch), and sends the write again, once; a second refusal is a
 * {@link CsrfTokenError}. Token and session cookies stay one pair: the cookies of a refused write (SAP
 * NetWeaver opens a new session with each) never replace those the token came with. Emits `csrf.fetched` and
 * `csrf.rejected`, which never carry the token or a cookie.
 *
 * @example
 * ```ts
 * const client = createClient({ baseURL: 'https://gw.example.com/sap/opu/odata/sap/API_SALES_ORDER_SRV/', plugins: [csrf()] })
 * await client.post('A_SalesOrder', { json: order }) // HEAD ... X-CSRF-Token: Fetch, then POST with the token
 * ```
 */
export function csrf(options: CsrfOptions = {}): Plugin & { readonly cookies: CookieStore | undefined } {
  checkOptionKeys('csrf', options, OPTION_KEYS, { url: 'fetchURL', fetchUrl: 'fetchURL', always: 'mode' });
  const mode = options.mode ?? 'auto';
  if (mode !== 'auto' && mode !== 'always') throw new ConfigError('csrf.mode', `must be 'auto' or 'always', got ${String(mode)}`);
  if (options.fetchURL !== undefined && (typeof options.fetchURL !== 'string' || !URL.canParse(options.fetchURL))) {
    throw new ConfigError('csrf.fetchURL', 'must be an absolute URL');
  }
  return new CsrfPlugin(mode, options.fetchURL, options.cookies ?? true);
}

class CsrfPlugin implements Plugin {
  readonly name = 'csrf';
  readonly credentialHeaders = ['x-csrf-token'];
  cookies: CookieStore | undefined;
  private fetchURL: string | undefined;
  private origin = '';
  private required: boolean;
  /** Tokens by the caller's own Cookie header ('' without one): a gateway binds its token to the session. */
  private readonly tokens = new Map<string, CachedToken>();
  private readonly states = new WeakMap<PluginRequest, RequestState>();
  /** Contexts of the plugin's own token fetches. */
  private readonly fetches = new WeakSet<object>();

  constructor(mode: 'auto' | 'always', fetchURL: string | undefined, private readonly cookieOption: boolean | CookieStore) {
    this.required = mode === 'always';
    this.fetchURL = fetchURL;
  }

  setup(client: Client): void {
    const url = this.fetchURL ?? client.options.baseURL;
    if (url === undefined) throw new ConfigError('csrf.fetchURL', 'is needed when the client has no baseURL');
    this.fetchURL = url;
    this.origin = new URL(url).origin;
    const store = this.cookieOption;
    if (store instanceof CookieStore && store.origin !== this.origin) {
      throw new ConfigError('csrf.cookies', `is a store for ${store.origin}, but the service is at ${this.origin}`);
    }
    this.cookies = store === true ? new CookieStore(this.origin) : store === false ? undefined : store;
  }

  async onRequest(req: PluginRequest, client: Client): Promise<void> {
    if (req.origin !== this.origin) return;
    const fetching = this.fetches.has(req.context);
    if (!fetching && SAFE.has(req.method)) return;
    let state = this.states.get(req);
    if (state === undefined) {
      state = { callerCookie: req.headers['cookie'], used: undefined, retried: false };
      this.states.set(req, state);
    }
    if (!fetching && this.required) {
      let token: string;
      try {
        token = await this.token(state.callerCookie ?? '', client, req.signal);
      } catch (error) {
        if (req.signal?.aborted && error === req.signal.reason) throw new AbortError(req.method, req.url, { cause: error });
        throw error;
      }
      req.headers['x-csrf-token'] = token;
      state.used = token;
    }
    // After the fetch: the session cookies the token is bound to came with it.
    const stored = this.cookies?.header(req.url);
    const cookie = [state.callerCookie, stored].filter((c) => c !== undefined && c !== '').join('; ');
    if (cookie !== '') req.headers['cookie'] = cookie;
  }

  async onResponse(res: SluiceResponse, req: PluginRequest, client: Client): Promise<PluginVerdict> {
    if (req.origin !== this.origin) return undefined;
    const fetching = this.fetches.has(req.context);
    if (!fetching && SAFE.has(req.method)) return undefined;
    const refused = !fetching && res.status === 403 && (REQUIRED.test(res.headers.get('x-csrf-token') ?? '') || await saysTokenFailed(res));
    if (!refused) {
      // The token fetch's cookies are the session its token belongs to; an accepted write may renew them.
      this.cookies?.store(res.url, res.headers.getSetCookie());
      return undefined;
    }
    // A refused write's cookies are not kept: SAP NetWeaver opens a new session with every refusal, and such a
    // cookie would replace the session the (shared) token was fetched in, so the token and the session cookies
    // would no longer go together.

    const state = this.states.get(req)!;
    this.required = true;
    const key = state.callerCookie ?? '';
    // Only the writer holding the cached token drops it: others may already carry a fresh one.
    if (state.used !== undefined && this.tokens.get(key)?.token === state.used) this.tokens.delete(key);
    const retrying = !state.retried;
    client.events.emit('csrf.rejected', { origin: this.origin, method: req.method, url: redactURL(req.url), retrying });
    if (retrying) {
      state.retried = true;
      return 'resend';
    }
    await res.cancel();
    throw new CsrfTokenError(this.origin, `${req.method} ${redactURL(req.url)} was refused for its CSRF token (403) again after a fresh token`, 403);
  }

  private token(key: string, client: Client, signal: AbortSignal | undefined): Promise<string> {
    let entry = this.tokens.get(key);
    if (entry === undefined) {
      const created: CachedToken = { token: undefined, promise: this.fetchToken(client, key) };
      created.promise.then((t) => { created.token = t; }, () => { if (this.tokens.get(key) === created) this.tokens.delete(key); });
      this.tokens.set(key, created);
      entry = created;
    }
    return signal === undefined ? entry.promise : raceAbort(entry.promise, signal);
  }

  /** HEAD with `X-CSRF-Token: Fetch`, then GET where HEAD is refused or answers no token. Shared by every waiting writer, so no caller signal. */
  private async fetchToken(client: Client, callerCookie: string): Promise<string> {
    let last: SluiceResponse | undefined;
    for (const method of ['HEAD', 'GET']) {
      const context = {};
      this.fetches.add(context);
      const headers: Record<string, string> = { 'x-csrf-token': 'Fetch' };
      if (callerCookie !== '') headers['cookie'] = callerCookie;
      let res: SluiceResponse;
      try {
        res = await client.request({ method, path: this.fetchURL!, headers, context, throwHttpErrors: false });
      } catch (cause) {
        throw new CsrfTokenError(this.origin, `the token fetch (${method}) failed: ${cause instanceof Error ? cause.message : String(cause)}`, undefined, { cause });
      }
      await res.cancel();
      const token = res.headers.get('x-csrf-token');
      if (res.status < 400 && token !== null && token !== '' && !REQUIRED.test(token)) {
        client.events.emit('csrf.fetched', { origin: this.origin, method, status: res.status });
        return token;
      }
      last = res;
    }
    throw new CsrfTokenError(this.origin, `the service answered no token to X-CSRF-Token: Fetch (status ${last!.status})`, last!.status);
  }
}

/**
 * Whether a 403 without `X-CSRF-Token: Required` is still a token refusal: SAP Gateway says so in the body
 * when a proxy dropped the header. Only a short body is looked at (peeked, left whole for the caller).
 */
async function saysTokenFailed(res: SluiceResponse): Promise<boolean> {
  const length = Number(res.headers.get('content-length') ?? Number.NaN);
  if (length > PEEK_BYTES) return false;
  const head = await res.peek(PEEK_BYTES);
  return TOKEN_FAILED.test(Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('utf8'));
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => { signal.removeEventListener('abort', onAbort); resolve(v); },
      (e: unknown) => { signal.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}
