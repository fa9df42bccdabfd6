import { createClient, type Client } from '@sluice/core';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { oauth2, TokenRequestError, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';

// Precise wire checks against a scripted token endpoint; behaviour against a real provider is in the other files.
let servers: TestServer[] = [];
let clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  clients = [];
});

async function tokenServer(answer: (body: URLSearchParams) => [number, unknown]): Promise<TestServer> {
  const server = await startServer((req, res, body) => {
    if (req.url === '/token') {
      const [status, value] = answer(new URLSearchParams(body));
      sendJSON(res, status, value, { 'cache-control': 'no-store' });
      return;
    }
    sendJSON(res, 200, { authorization: req.headers.authorization ?? null });
  });
  servers.push(server);
  return server;
}

function clientFor(server: TestServer, config: Partial<OAuth2Config>, options?: OAuth2Options): Client {
  const client = createClient({
    baseURL: `${server.origin}/api`,
    plugins: [oauth2({ clientId: 'svc', clientSecret: 's', tokenURL: `${server.origin}/token`, grantType: 'client_credentials', ...config } as OAuth2Config, options)],
  });
  clients.push(client);
  return client;
}

const ok = (): [number, unknown] => [200, { access_token: 'tok-1', token_type: 'bearer', expires_in: 120 }];

describe('token request on the wire', () => {
  it('authenticates with HTTP Basic over the form-urlencoded id and secret (RFC 6749 2.3.1)', async () => {
    const server = await tokenServer(ok);
    const client = clientFor(server, { clientId: 'svc:one', clientSecret: 'p@ss w+rd/é' });
    await client.get('me');
    const token = server.requests.find((r) => r.url === '/token')!;
    expect(token.method).toBe('POST');
    expect(token.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const decoded = Buffer.from(token.headers.authorization!.replace(/^Basic /, ''), 'base64').toString('utf8');
    expect(decoded).toBe('svc%3Aone:p%40ss+w%2Brd%2F%C3%A9');
    const form = new URLSearchParams(token.body);
    expect(form.get('grant_type')).toBe('client_credentials');
    expect(form.has('client_secret')).toBe(false);
  });

  it('sends the secret in the body with client_secret_post, and scopes and extra parameters in every request', async () => {
    const server = await tokenServer(ok);
    const client = clientFor(server, {
      tokenEndpointAuthMethod: 'client_secret_post', scopes: ['read', 'write'], extraParams: { audience: 'https://api.example.com' },
    });
    await client.get('me');
    const token = server.requests.find((r) => r.url === '/token')!;
    expect(token.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'client_credentials', client_id: 'svc', client_secret: 's', scope: 'read write', audience: 'https://api.example.com',
    });
  });

  it('attaches the token as "Authorization: Bearer" whatever the case of token_type', async () => {
    const server = await tokenServer(ok);
    const body = await clientFor(server, {}).getJSON<{ authorization: string }>('me');
    expect(body.authorization).toBe('Bearer tok-1');
  });

  it('turns an RFC 6749 5.2 error into TokenRequestError with its fields, and no secret in the message', async () => {
    const server = await tokenServer(() => [401, { error: 'invalid_client', error_description: 'client authentication failed', error_uri: 'https://docs/x' }]);
    const client = clientFor(server, { clientSecret: 'very-secret-123' });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 401, error: 'invalid_client', errorDescription: 'client authentication failed', errorURI: 'https://docs/x', grantType: 'client_credentials' });
    expect(JSON.stringify(error) + (error as Error).message + (error as Error).stack).not.toContain('very-secret-123');
    expect(server.requests.filter((r) => r.url !== '/token')).toHaveLength(0);
  });

  it('rejects a token type other than Bearer', async () => {
    const server = await tokenServer(() => [200, { access_token: 'mac-tok', token_type: 'mac', expires_in: 60 }]);
    const error = await clientFor(server, {}).get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as Error).message).toMatch(/Bearer only/);
    expect((error as Error).message).not.toContain('mac-tok');
  });

  it('reports an unreachable token endpoint as TokenRequestError with the network error as cause', async () => {
    const server = await tokenServer(ok);
    const client = createClient({
      baseURL: server.origin,
      plugins: [oauth2({ clientId: 'svc', clientSecret: 's', tokenURL: 'http://127.0.0.1:1/token', grantType: 'client_credentials' })],
    });
    clients.push(client);
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).status).toBeUndefined();
    expect((error as Error).cause).toBeInstanceOf(Error);
  });

  it('exchanges the code with redirect_uri, verifier and client_id for a public client (RFC 6749 4.1.3, RFC 7636 4.5)', async () => {
    const server = await tokenServer(ok);
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const client = clientFor(server, {
      clientSecret: undefined, grantType: 'authorization_code', redirectURL: 'http://127.0.0.1/cb', pkce: true,
    }, { authorizationCode: 'the-code', codeVerifier: verifier });
    await client.get('me');
    const token = server.requests.find((r) => r.url === '/token')!;
    expect(token.headers.authorization).toBeUndefined();
    expect(Object.fromEntries(new URLSearchParams(token.body))).toEqual({
      grant_type: 'authorization_code', code: 'the-code', redirect_uri: 'http://127.0.0.1/cb', code_verifier: verifier, client_id: 'svc',
    });
  });

  it('sends no API credentials to the token endpoint', async () => {
    const server = await tokenServer(ok);
    const client = createClient({
      baseURL: server.origin,
      headers: { 'x-api-key': 'api-key-value' },
      plugins: [oauth2({ clientId: 'svc', clientSecret: 's', tokenURL: `${server.origin}/token`, grantType: 'client_credentials' })],
    });
    clients.push(client);
    await client.get('me');
    const token = server.requests.find((r) => r.url === '/token')!;
    expect(token.headers['x-api-key']).toBeUndefined();
    expect(server.requests.find((r) => r.url === '/me')!.headers['x-api-key']).toBe('api-key-value');
  });
});
