import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';
import { completeLogin } from './login.js';
import { testStorage } from './storage.js';

/** Resource indicator (RFC 8707) of the protected API; its access tokens are JWTs with this audience. */
export const API_RESOURCE = 'urn:sluice:api';
/** A second resource the provider knows, so tests can show a `resource` extra parameter took effect. */
export const OTHER_RESOURCE = 'urn:sluice:other';
/** Scope the protected API grants. */
export const API_SCOPE = 'api:read';

/** Client ids and secrets registered with the test provider. */
export const OIDC_CLIENTS = {
  /** client_credentials, `client_secret_basic`. */
  service: { clientId: 'service', clientSecret: 'service-secret-1f9c' },
  /** client_credentials, `client_secret_post`. */
  servicePost: { clientId: 'service-post', clientSecret: 'service-post-secret-77ab' },
  /** Confidential authorization_code + refresh_token client (any loopback port for its redirect URI). */
  webApp: { clientId: 'web-app', clientSecret: 'web-app-secret-4e21' },
  /** Public authorization_code + refresh_token client (`none`, PKCE required). */
  publicApp: { clientId: 'public-app', clientSecret: undefined },
} as const;

/** Redirect URI registered for the code-flow clients; any port on 127.0.0.1 matches (RFC 8252 7.3). */
export const OIDC_REDIRECT_URI = 'http://127.0.0.1/callback';

/** What the token endpoint does with the next requests (see {@link OIDCProvider.failTokenRequests}). */
export type TokenFault = 'unavailable' | 'drop' | 'invalid_grant' | 'hold';

/** A successful grant at the token endpoint, as the provider reported it. */
export interface GrantRecord {
  grantType: string;
  clientId: string;
}

/** Options of {@link startOIDCProvider}. */
export interface OIDCProviderOptions {
  /** Access token lifetime in seconds (changeable later through `settings`). Default 300. */
  accessTokenTTL?: number;
  /**
   * More clients to register, as oidc-provider client metadata (for example a `private_key_jwt` client
   * with its public `jwks`), next to those of {@link OIDC_CLIENTS}.
   */
  clients?: readonly Record<string, unknown>[];
}

/** A running oidc-provider on 127.0.0.1 with the clients of {@link OIDC_CLIENTS}. */
export interface OIDCProvider {
  /** `http://127.0.0.1:<port>`, exactly the `iss` of its tokens. */
  readonly issuer: string;
  readonly tokenURL: string;
  readonly authorizationURL: string;
  readonly jwksURL: string;
  /** Mutable settings read on every token issued. */
  readonly settings: { accessTokenTTL: number };
  /** Requests that reached `POST /token`, failed or not. */
  tokenRequests(): number;
  /** Successful grants, in order. */
  readonly grants: GrantRecord[];
  /**
   * Makes the next `count` token requests fail: `unavailable` answers 503, `drop` destroys the socket,
   * `invalid_grant` answers 400 with an RFC 6749 5.2 body, `hold` keeps the request waiting until
   * {@link OIDCProvider.restoreTokenRequests} lets it through. `count` defaults to every request until then.
   */
  failTokenRequests(fault: TokenFault, count?: number): void;
  /** Ends the faults and lets held token requests through to the provider. */
  restoreTokenRequests(): void;
  /** Resolves when the next request reaches `POST /token` (before any fault applies). */
  nextTokenRequest(): Promise<void>;
  /**
   * Plays the user's browser: follows the authorization URL, logs `accountId` in, grants consent, and
   * resolves with the URL the provider redirected to (the client's callback, carrying `code` and `state`).
   */
  login(authorizationURL: string, accountId?: string): Promise<string>;
  close(): Promise<void>;
}

let keys: Promise<JWK> | undefined;

/** One RSA signing key per process: generating it is the slow part of starting a provider. */
function signingKey(): Promise<JWK> {
  keys ??= generateKeyPair('RS256', { extractable: true }).then(async ({ privateKey }) => ({
    ...(await exportJWK(privateKey)), kid: 'sluice-test', alg: 'RS256', use: 'sig',
  }));
  return keys;
}

/**
 * Starts a real OpenID Provider (oidc-provider 8) in-process on 127.0.0.1: client credentials,
 * authorization code with PKCE, rotating refresh tokens, JWT access tokens for {@link API_RESOURCE}
 * signed with a key published at `/jwks`, and a login/consent interaction a test drives with `login()`.
 *
 * @example
 * ```ts
 * const op = await startOIDCProvider({ accessTokenTTL: 2 })
 * const callback = await op.login(authorizationURL)
 * await op.close()
 * ```
 */
export async function startOIDCProvider(options: OIDCProviderOptions = {}): Promise<OIDCProvider> {
  const settings = { accessTokenTTL: options.accessTokenTTL ?? 300 };
  const grants: GrantRecord[] = [];
  let hits = 0;
  let fault: { kind: TokenFault; left: number } | undefined;
  let held: [IncomingMessage, ServerResponse][] = [];
  let arrivals: (() => void)[] = [];
  const sockets = new Set<Socket>();
  // eslint-disable-next-line prefer-const -- assigned once the provider exists; the server is created first.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer((req, res) => handler?.(req, res));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    adapter: testStorage(),
    jwks: { keys: [await signingKey()] },
    cookies: { keys: ['sluice-testkit-cookie-key'] },
    ttl: {
      AccessToken: () => settings.accessTokenTTL,
      ClientCredentials: () => settings.accessTokenTTL,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 24 * 3600,
      Interaction: 600,
      Session: 3600,
      Grant: 24 * 3600,
    },
    clients: [
      {
        client_id: OIDC_CLIENTS.service.clientId, client_secret: OIDC_CLIENTS.service.clientSecret,
        grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: OIDC_CLIENTS.servicePost.clientId, client_secret: OIDC_CLIENTS.servicePost.clientSecret,
        grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
        token_endpoint_auth_method: 'client_secret_post',
      },
      {
        client_id: OIDC_CLIENTS.webApp.clientId, client_secret: OIDC_CLIENTS.webApp.clientSecret,
        application_type: 'native', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
        redirect_uris: [OIDC_REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: OIDC_CLIENTS.publicApp.clientId,
        application_type: 'native', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
        redirect_uris: [OIDC_REDIRECT_URI], token_endpoint_auth_method: 'none',
      },
      ...(options.clients ?? []),
    ],
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => API_RESOURCE,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => ({
          scope: API_SCOPE,
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: settings.accessTokenTTL,
        }),
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    pkce: { methods: ['S256'], required: () => true },
  });
  provider.on('grant.success', (ctx: { oidc: { params: { grant_type: string }; client?: { clientId: string } } }) => {
    grants.push({ grantType: ctx.oidc.params.grant_type, clientId: ctx.oidc.client?.clientId ?? '' });
  });
  provider.on('server_error', () => undefined);
  const providerHandler = provider.callback();

  handler = (req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    if (req.method === 'POST' && path === '/token') {
      hits++;
      const waiting = arrivals;
      arrivals = [];
      for (const resolve of waiting) resolve();
      if (fault && fault.left > 0) {
        fault.left--;
        const kind = fault.kind;
        if (fault.left === 0) fault = undefined;
        if (kind === 'hold') {
          held.push([req, res]);
          return;
        }
        req.resume();
        if (kind === 'drop') {
          req.socket.destroy();
          return;
        }
        const [status, body] = kind === 'unavailable'
          ? [503, { error: 'temporarily_unavailable', error_description: 'token endpoint is down for the test' }]
          : [400, { error: 'invalid_grant', error_description: 'grant revoked for the test' }];
        res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify(body));
        return;
      }
    }
    if (path.startsWith('/interaction/')) {
      completeLogin(provider, req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
      return;
    }
    providerHandler(req, res);
  };

  return {
    issuer,
    tokenURL: `${issuer}/token`,
    authorizationURL: `${issuer}/auth`,
    jwksURL: `${issuer}/jwks`,
    settings,
    tokenRequests: () => hits,
    grants,
    failTokenRequests(kind, count = Number.POSITIVE_INFINITY) {
      fault = { kind, left: count };
    },
    restoreTokenRequests() {
      fault = undefined;
      const release = held;
      held = [];
      for (const [req, res] of release) providerHandler(req, res);
    },
    nextTokenRequest: () => new Promise<void>((resolve) => arrivals.push(resolve)),
    login: (authorizationURL, accountId = 'alice') => browse(issuer, authorizationURL, accountId),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Follows redirects with a cookie jar until the provider sends the browser somewhere else. */
async function browse(issuer: string, start: string, accountId: string): Promise<string> {
  const jar = new Map<string, string>();
  let url = start;
  for (let hop = 0; hop < 12; hop++) {
    const target = new URL(url);
    if (target.origin !== issuer) return url;
    if (target.pathname.startsWith('/interaction/')) target.searchParams.set('account', accountId);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await fetch(target, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = res.headers.get('location');
    await res.arrayBuffer();
    if (res.status < 300 || res.status >= 400 || location === null) {
      throw new Error(`login stopped at ${target.pathname} with status ${res.status}`);
    }
    url = new URL(location, target).href;
  }
  throw new Error('login did not finish within 12 redirects');
}
