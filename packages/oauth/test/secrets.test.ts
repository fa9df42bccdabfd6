import { inspect } from 'node:util';
import { ConfigError, createClient, type Client, type SluiceEvent } from '@sluice/core';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { forceRefresh, oauth2, TokenRequestError, type OAuth2Config, type OAuth2Options, type TokenEvent } from '@sluice/oauth';

// SPEC 5.6: nothing the client sent to the token endpoint comes back out through errors or events.
const track = closeAfterEach();

const SECRET = 'sEcr3t/with+chars&more';
const VERIFIER = 'v'.repeat(20) + '-verifier-abcdefghijklmnopq';
const CODE = 'code-0f3a9c';
const REFRESH = 'rt-77de01';

/** A token endpoint that refuses every request and echoes all it received, raw and URL-encoded. */
async function echoingServer(): Promise<TestServer> {
  const server = await startServer((req, res, body) => {
    if (req.url?.startsWith('/token')) {
      const echoed = `${body} ${req.headers.authorization ?? ''} ${decodeURIComponent(body.replace(/\+/g, ' '))}`;
      sendJSON(res, 400, { error: 'invalid_client', error_description: `bad: ${echoed}`, error_uri: `https://idp.example/e?got=${encodeURIComponent(echoed)}` });
      return;
    }
    sendJSON(res, 200, {});
  });
  return track(server);
}

function clientFor(server: TestServer, config: Partial<OAuth2Config>, options?: OAuth2Options): Client {
  const client = createClient({
    baseURL: `${server.origin}/api`,
    plugins: [oauth2({ clientId: 'svc', tokenURL: `${server.origin}/token`, grantType: 'client_credentials', ...config } as OAuth2Config, options)],
  });
  return track(client);
}

/** Everything a caller or a log could see of an error. */
function everything(error: unknown): string {
  const err = error as TokenRequestError;
  return [err.message, err.stack, err.errorDescription, err.errorURI, err.error, inspect(err, { depth: 5 }), JSON.stringify(err)].join('\n');
}

function expectNone(text: string, values: string[]): void {
  for (const value of values) {
    for (const form of [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]) expect(text).not.toContain(form);
  }
}

describe('secrets echoed by the token endpoint', () => {
  it('scrubs the client secret and the Basic credentials (client_secret_basic)', async () => {
    const server = await echoingServer();
    const client = clientFor(server, { clientSecret: SECRET });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).errorDescription).toContain('[REDACTED]');
    const basic = server.requests[0]!.headers.authorization!.slice('Basic '.length);
    expectNone(everything(error), [SECRET, basic]);
  });

  it('scrubs the client secret sent in the body (client_secret_post)', async () => {
    const server = await echoingServer();
    const client = clientFor(server, { clientSecret: SECRET, tokenEndpointAuthMethod: 'client_secret_post' });
    const error = await client.get('me').catch((e: unknown) => e);
    expect((error as TokenRequestError).error).toBe('invalid_client');
    expectNone(everything(error), [SECRET]);
  });

  it('scrubs a short secret where it stands alone, without eating the letters of other words', async () => {
    const server = await echoingServer();
    const client = clientFor(server, { clientSecret: 'se', tokenEndpointAuthMethod: 'client_secret_post' });
    const error = (await client.get('me').catch((e: unknown) => e)) as TokenRequestError;
    expect(error.errorDescription).toContain('client_secret=[REDACTED]');
    expect(error.errorDescription).not.toMatch(/client_secret=se\b/);
    expect(error.message).toContain('Token request');
  });

  it('scrubs the code and the code verifier of an authorization code exchange', async () => {
    const server = await echoingServer();
    const client = clientFor(server, {
      clientSecret: SECRET, grantType: 'authorization_code', redirectURL: 'http://127.0.0.1/cb', authorizationURL: `${server.origin}/auth`,
    }, { authorizationCode: CODE, codeVerifier: VERIFIER });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expectNone(everything(error), [SECRET, CODE, VERIFIER]);
  });

  it('scrubs the refresh token from the error and from the TokenRefreshFailed event', async () => {
    const server = await echoingServer();
    const events: TokenEvent[] = [];
    const plugin = oauth2({ clientId: 'pub', tokenURL: `${server.origin}/token`, grantType: 'refresh_token' }, {
      refreshToken: REFRESH, onTokenEvent: (e) => events.push(e),
    });
    const client = createClient({ baseURL: `${server.origin}/api`, plugins: [plugin] });
    track(client);
    const error = await forceRefresh(client).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(events.map((e) => e.type)).toEqual(['TokenRefreshFailed']);
    expectNone(everything(error) + everything(events[0]!.error), [REFRESH]);
  });

  it('reports token requests as events carrying no secret', async () => {
    const server = await echoingServer();
    const seen: SluiceEvent[] = [];
    const client = createClient({
      baseURL: `${server.origin}/api`,
      onEvent: (e) => seen.push(e),
      plugins: [oauth2({ clientId: 'svc', clientSecret: SECRET, tokenURL: `${server.origin}/token?tenant=1`, grantType: 'client_credentials' })],
    });
    track(client);
    await client.get('me').catch(() => undefined);
    const oauthEvents = seen.filter((e) => e.type.startsWith('oauth.'));
    // A 400 is not retried: one request, one response.
    expect(oauthEvents.map((e) => e.type)).toEqual(['oauth.token.request', 'oauth.token.response']);
    expect(oauthEvents[0]).toMatchObject({ tokenURL: `${server.origin}/token?tenant=1` });
    expect(oauthEvents[1]).toMatchObject({ type: 'oauth.token.response', ok: false, status: 400, error: 'invalid_client', grantType: 'client_credentials' });
    expectNone(JSON.stringify(oauthEvents), [SECRET]);
  });
});

describe('secrets echoed by the API (issue 29)', () => {
  it('the tokens the plugin obtained and its client secret are scrubbed from the API\'s error and events', async () => {
    const access = 'at-29-0c1d2e3f4a5b';
    const refresh = 'rt-29-9f8e7d6c5b4a';
    const seen: SluiceEvent[] = [];
    const server = track(await startServer((req, res) => {
      if (req.url?.startsWith('/token')) return sendJSON(res, 200, { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh });
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
      res.writeHead(500, { 'content-type': 'text/plain', 'www-authenticate': `Bearer error="invalid_token", error_description="${token}"` });
      res.end(`the credential ${token} is not valid; refresh with ${refresh}; client secret ${SECRET}, ${encodeURIComponent(SECRET)}`);
    }));
    const client = track(createClient({
      baseURL: `${server.origin}/api`, retry: false, onEvent: (e) => seen.push(e),
      plugins: [oauth2({ clientId: 'svc', clientSecret: SECRET, tokenURL: `${server.origin}/token`, grantType: 'client_credentials' })],
    }));
    const error = await client.get('me').catch((e: unknown) => e);
    expect((error as { status?: number }).status).toBe(500);
    const shown = [everything(error), (error as { bodyText: string }).bodyText, JSON.stringify((error as { headers: unknown }).headers), JSON.stringify(seen), inspect(client, { depth: 8 }), JSON.stringify(client)].join('\n');
    expect(shown).toContain('the credential [REDACTED] is not valid');
    expectNone(shown, [access, refresh, SECRET, Buffer.from(access).toString('base64')]);
  });
});

describe('plain-http authorization servers', () => {
  const base = { clientId: 'svc', clientSecret: 's', grantType: 'client_credentials' } as const;

  it('refuses an http token endpoint off this machine', () => {
    expect(() => oauth2({ ...base, tokenURL: 'http://login.example.com/token' })).toThrow(ConfigError);
    expect(() => oauth2({ ...base, tokenURL: 'http://login.example.com/token' })).toThrow(/tokenURL must use https.*allowInsecureHTTP/);
    expect(() => oauth2({ ...base, tokenURL: 'https://login.example.com/token', issuer: 'http://10.0.0.1' })).toThrow(/issuer must use https/);
  });

  it('accepts http on loopback hosts, and elsewhere only with allowInsecureHTTP', () => {
    for (const host of ['127.0.0.1:8080', 'localhost', '[::1]:9000', '127.10.0.3']) {
      expect(() => oauth2({ ...base, tokenURL: `http://${host}/token` })).not.toThrow();
    }
    expect(() => oauth2({ ...base, tokenURL: 'http://idp.test/token', allowInsecureHTTP: true })).not.toThrow();
    expect(() => oauth2({ ...base, tokenURL: 'https://idp.test/token' })).not.toThrow();
  });
});

describe('unknown option keys', () => {
  const base = { clientId: 'svc', clientSecret: 's', tokenURL: 'https://idp.test/token', grantType: 'client_credentials' } as const;

  it('refuses scope with a hint to scopes', () => {
    expect(() => oauth2({ ...base, scope: 'read' } as unknown as OAuth2Config)).toThrow('scope is not a known option; did you mean scopes?');
  });

  it('refuses a misspelt option and a misspelt nested key', () => {
    expect(() => oauth2({ ...base, refreshBufer: 10 } as unknown as OAuth2Config)).toThrow(/refreshBufer is not a known option; did you mean refreshBuffer/);
    expect(() => oauth2(base, { timout: 5 } as unknown as OAuth2Options)).toThrow(/timout is not a known option; did you mean timeout/);
    expect(() => oauth2(base, { tokenRetry: { limit: 2 } } as unknown as OAuth2Options)).toThrow(/tokenRetry.limit is not an option of tokenRetry; did you mean tokenRetry.maxAttempts/);
    expect(() => oauth2(base, { refreshRetry: { maxDelay: 5000 } } as unknown as OAuth2Options)).toThrow('refreshRetry.maxDelay is not an option of refreshRetry; did you mean refreshRetry.maxWait?');
    expect(() => oauth2(base, { tokenTransport: { tsl: {} } } as unknown as OAuth2Options)).toThrow(/tokenTransport\.tsl is not an option of tokenTransport; did you mean tokenTransport\.tls\?/);
    expect(() => oauth2(base, { tokenTransport: { tls: { rejectUnauthorized: false } } } as unknown as OAuth2Options)).toThrow(/rejectUnauthorized is not an option of tokenTransport\.tls; did you mean tokenTransport\.tls\.insecureSkipVerify\?/);
  });
});
