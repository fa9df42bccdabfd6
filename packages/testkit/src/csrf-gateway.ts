// CSRF token protection as an SAP ABAP gateway does it: the token is fetched with
// `X-CSRF-Token: Fetch` on a read, bound to a session cookie, and checked on every modifying request.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Options of {@link CsrfGateway}. */
export interface CsrfGatewayOptions {
  /** Name of the session cookie (default `SAP_SESSIONID_DEMO_100`). */
  cookieName?: string;
  /** Answer HEAD requests with 405, as some gateways do, so clients must fetch with GET. */
  refuseHead?: boolean;
  /**
   * Send `X-CSRF-Token: Required` with a refusal (default true); false leaves only the body
   * `CSRF token validation failed`, as when a proxy in front of the gateway drops the header.
   */
  requiredHeader?: boolean;
  /** The refusal's body as an SAP Gateway XML error (`<error><code/><message/></error>`) instead of plain text. */
  xmlRejection?: boolean;
  /**
   * As SAP NetWeaver does: a refused write without a live session opens a NEW session and sets its cookie
   * with the 403, every time (default false). A client that lets such a cookie replace the session its
   * token belongs to sends the token with the wrong session.
   */
  sessionOnRefusal?: boolean;
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/**
 * Session and token bookkeeping of an ABAP-gateway-like CSRF check, usable in any node:http handler.
 * Counts token fetches and refusals so tests can assert them at the server.
 *
 * @example
 * ```ts
 * const gw = new CsrfGateway();
 * const srv = await startServer((req, res) => { if (gw.handle(req, res)) return; res.end('ok'); });
 * ```
 */
export class CsrfGateway {
  /** Token by session id. */
  private readonly tokens = new Map<string, string>();
  private readonly sessions = new Set<string>();
  readonly cookieName: string;
  private readonly refuseHead: boolean;
  private readonly requiredHeader: boolean;
  private readonly xmlRejection: boolean;
  private readonly sessionOnRefusal: boolean;
  /** Token fetches answered with a token. */
  fetches = 0;
  /** Modifying requests refused with 403 `X-CSRF-Token: Required`. */
  rejections = 0;

  constructor(options: CsrfGatewayOptions = {}) {
    this.cookieName = options.cookieName ?? 'SAP_SESSIONID_DEMO_100';
    this.refuseHead = options.refuseHead ?? false;
    this.requiredHeader = options.requiredHeader ?? true;
    this.xmlRejection = options.xmlRejection ?? false;
    this.sessionOnRefusal = options.sessionOnRefusal ?? false;
  }

  /** Every issued token becomes invalid (tokens expire mid-session); sessions stay. */
  expireTokens(): void {
    this.tokens.clear();
  }

  /** Every session ends (and its token with it), as after a gateway logoff or timeout. */
  expireSessions(): void {
    this.sessions.clear();
    this.tokens.clear();
  }

  /** The session id the request's cookie names, when it is a live session. */
  session(req: IncomingMessage): string | undefined {
    const cookie = String(req.headers.cookie ?? '');
    for (const part of cookie.split(';')) {
      const [name, value] = part.trim().split('=');
      if (name === this.cookieName && value !== undefined && this.sessions.has(value)) return value;
    }
    return undefined;
  }

  /**
   * Answers a token fetch (any read with `X-CSRF-Token: Fetch`), or refuses a modifying request without
   * the session's token; returns true when it answered. Otherwise the caller handles the request; a
   * fetch on a GET is answered by the caller too, with the token header already set on `res`.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean {
    const method = req.method ?? 'GET';
    const header = String(req.headers['x-csrf-token'] ?? '');
    if (SAFE.has(method)) {
      if (header.toLowerCase() !== 'fetch') return false;
      if (method === 'HEAD' && this.refuseHead) {
        res.writeHead(405, { 'content-length': '0' }).end();
        return true;
      }
      const session = this.session(req) ?? this.openSession(res);
      let token = this.tokens.get(session);
      if (token === undefined) {
        token = randomBytes(16).toString('base64url');
        this.tokens.set(session, token);
      }
      this.fetches++;
      res.setHeader('x-csrf-token', token);
      if (method !== 'HEAD') return false;
      res.writeHead(200, { 'content-length': '0' }).end();
      return true;
    }
    const session = this.session(req);
    if (session !== undefined && header !== '' && this.tokens.get(session) === header) return false;
    this.rejections++;
    const body = this.xmlRejection
      ? '<?xml version="1.0" encoding="utf-8"?><error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">' +
        '<code>403</code><message xml:lang="en">CSRF token validation failed</message></error>'
      : 'CSRF token validation failed';
    const headers: Record<string, string> = { 'content-type': this.xmlRejection ? 'application/xml' : 'text/plain', 'content-length': String(Buffer.byteLength(body)) };
    if (this.requiredHeader) headers['x-csrf-token'] = 'Required';
    if (session === undefined && this.sessionOnRefusal) this.openSession(res);
    res.writeHead(403, headers).end(body);
    return true;
  }

  /** Starts a session and sets its cookie on `res`. */
  private openSession(res: ServerResponse): string {
    const session = randomBytes(12).toString('hex');
    this.sessions.add(session);
    res.setHeader('set-cookie', [`${this.cookieName}=${session}; Path=/; HttpOnly`, 'sap-usercontext=sap-client=100; Path=/']);
    return session;
  }
}
