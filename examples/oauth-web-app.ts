// A complete authorization-code web app with @sluice/oauth: /login sends the browser to the authorization
// server, /callback checks the state (400 on a mismatch, SPEC 7) and exchanges the code with PKCE, /profile
// calls the API as the user. Run it against your own server:
//   OAUTH_CLIENT_ID=... OAUTH_CLIENT_SECRET=... OAUTH_AUTHORIZATION_URL=... OAUTH_TOKEN_URL=... \
//   API_BASE_URL=... node --import tsx examples/oauth-web-app.ts
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createClient, type Client } from '@sluice/core';
import { AuthorizationError, buildAuthorizationURL, oauth2, StateMismatchError, verifyCallback, type OAuth2Config } from '@sluice/oauth';

/** Settings of {@link startWebApp}. */
export interface WebAppOptions {
  clientId: string;
  /** Leave out for a public client (PKCE is on either way). */
  clientSecret?: string | undefined;
  authorizationURL: string;
  tokenURL: string;
  /** Base URL of the API called on the user's behalf. */
  apiBaseURL: string;
  scopes?: string[] | undefined;
  /** Port on 127.0.0.1; 0 picks a free one. */
  port?: number | undefined;
}

/** One browser session: the pending authorization, then the user's API client. */
interface Session {
  pending?: { state: string; codeVerifier: string | undefined };
  api?: Client;
}

/** The running app: `origin` is where the browser goes, `close()` stops it and its API clients. */
export interface WebApp {
  origin: string;
  close(): Promise<void>;
}

function sessionId(req: IncomingMessage): string | undefined {
  return /(?:^|;\s*)sid=([A-Za-z0-9_-]+)/.exec(req.headers.cookie ?? '')?.[1];
}

function reply(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', ...headers });
  res.end(text);
}

/** Starts the web app on 127.0.0.1. */
export async function startWebApp(options: WebAppOptions): Promise<WebApp> {
  const sessions = new Map<string, Session>();
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const config: OAuth2Config = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    authorizationURL: options.authorizationURL,
    tokenURL: options.tokenURL,
    redirectURL: `${origin}/callback`,
    grantType: 'authorization_code',
    scopes: options.scopes ?? ['openid', 'api:read'],
    pkce: true,
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', origin);
    const sid = sessionId(req);
    const session = sid === undefined ? undefined : sessions.get(sid);

    if (url.pathname === '/login') {
      const id = randomBytes(24).toString('base64url');
      const { url: authorizationURL, state, codeVerifier } = await buildAuthorizationURL(config);
      sessions.set(id, { pending: { state, codeVerifier } }); // state and verifier stay on the server
      reply(res, 302, '', { location: authorizationURL, 'set-cookie': `sid=${id}; HttpOnly; SameSite=Lax; Path=/` });
      return;
    }

    if (url.pathname === '/callback') {
      const pending = session?.pending;
      if (session === undefined || pending === undefined) return reply(res, 400, 'No login in progress for this browser');
      let code: string;
      try {
        code = verifyCallback(url, pending.state);
      } catch (error) {
        if (error instanceof StateMismatchError) return reply(res, 400, 'State mismatch: the callback was rejected');
        if (error instanceof AuthorizationError) return reply(res, 403, `Authorization refused: ${error.error}`);
        throw error;
      }
      delete session.pending; // a state is good for one callback only
      const api = createClient({ baseURL: options.apiBaseURL, plugins: [oauth2(config, { authorizationCode: code, codeVerifier: pending.codeVerifier })] });
      try {
        await api.get('me'); // the first request exchanges the code
      } catch (error) {
        await api.close();
        return reply(res, 502, `Sign-in failed: ${(error as Error).message}`);
      }
      session.api = api;
      reply(res, 302, '', { location: '/profile' });
      return;
    }

    if (url.pathname === '/profile') {
      if (session?.api === undefined) return reply(res, 302, '', { location: '/login' });
      const me = await session.api.getJSON<{ sub: string }>('me');
      reply(res, 200, `Hello ${me.sub}`);
      return;
    }
    reply(res, 404, 'Not found');
  };

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) reply(res, 500, 'Internal error');
      else res.end();
    });
  });

  return {
    origin,
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.api?.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const env = (name: string): string => {
    const value = process.env[name];
    if (!value) throw new Error(`Set ${name}`);
    return value;
  };
  const app = await startWebApp({
    clientId: env('OAUTH_CLIENT_ID'),
    clientSecret: process.env['OAUTH_CLIENT_SECRET'] || undefined,
    authorizationURL: env('OAUTH_AUTHORIZATION_URL'),
    tokenURL: env('OAUTH_TOKEN_URL'),
    apiBaseURL: env('API_BASE_URL'),
    port: Number(process.env['PORT'] ?? 3000),
  });
  console.log(`Open ${app.origin}/login`);
}
