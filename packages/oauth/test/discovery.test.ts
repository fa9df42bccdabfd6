import { createClient, type Client } from '@sluice/core';
import { OIDC_CLIENTS, sendJSON, startOIDCProvider, startProtectedAPI, startServer, type OIDCProvider, type ProtectedAPI, type TestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { buildAuthorizationURL, DiscoveryError, oauth2, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';

// RFC 8414 / OpenID Connect Discovery: endpoints from the issuer, checked and cached.
const track = closeAfterEach();
const { clientId, clientSecret } = OIDC_CLIENTS.service;

let op: OIDCProvider;
let api: ProtectedAPI;
beforeAll(async () => {
  op = await startOIDCProvider();
  api = await startProtectedAPI(op.issuer);
});
afterAll(async () => {
  await api.close();
  await op.close();
});

function apiClient(config: Partial<OAuth2Config>, options: OAuth2Options = {}): Client {
  return track(createClient({
    baseURL: `${api.origin}/v1`,
    plugins: [oauth2({ clientId, clientSecret, grantType: 'client_credentials', scopes: ['api:read'], ...config }, { tokenRetry: { waitBase: 10, maxWait: 20 }, ...options })],
  }));
}

/** A metadata server: `documents` maps a path to [status, body]; `issuerPath` is appended to its origin. */
async function metadataServer(documents: (origin: string) => Record<string, [number, unknown]>): Promise<TestServer> {
  const server: TestServer = track(await startServer((req, res) => {
    const answer = documents(server.origin)[req.url ?? ''];
    if (answer === undefined) sendJSON(res, 404, { error: 'not_found' });
    else sendJSON(res, answer[0], answer[1]);
  }));
  return server;
}

const metadataRequests = (server: TestServer): number => server.requests.filter((r) => r.url.includes('/.well-known/')).length;

describe('discovery from the issuer', () => {
  it('finds the token endpoint of oidc-provider from its issuer', async () => {
    const client = apiClient({ issuer: op.issuer });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'service' });
  });

  it('fetches the document once for every plugin of the process', async () => {
    const server = await metadataServer((origin) => ({
      '/.well-known/openid-configuration': [200, { issuer: origin, token_endpoint: op.tokenURL }],
    }));
    const a = apiClient({ issuer: server.origin });
    const b = apiClient({ issuer: server.origin });
    await Promise.all([a.get('me'), b.get('me'), a.get('me')]);
    expect(metadataRequests(server)).toBe(1);
  });

  it('falls back to /.well-known/oauth-authorization-server with the issuer path after it (RFC 8414 3.1)', async () => {
    const server = await metadataServer((origin) => ({
      '/.well-known/oauth-authorization-server/tenant-a': [200, { issuer: `${origin}/tenant-a`, token_endpoint: op.tokenURL }],
    }));
    const client = apiClient({ issuer: `${server.origin}/tenant-a` });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'service' });
    expect(server.requests.map((r) => r.url)).toEqual([
      '/tenant-a/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/tenant-a',
    ]);
  });

  it('refuses a document naming another issuer (RFC 8414 3.3)', async () => {
    const server = await metadataServer(() => ({
      '/.well-known/openid-configuration': [200, { issuer: 'https://evil.example', token_endpoint: op.tokenURL }],
    }));
    const before = op.tokenRequests();
    const error = await apiClient({ issuer: server.origin }).get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect((error as Error).message).toMatch(/names another issuer \("https:\/\/evil\.example"\)/);
    // Mix-up defence: no credential went to the endpoint the foreign document named.
    expect(op.tokenRequests()).toBe(before);
  });

  it('reports a missing document as DiscoveryError with the status, and does not cache the failure', async () => {
    let ready = false;
    const server = await metadataServer((origin): Record<string, [number, unknown]> => (ready ? { '/.well-known/openid-configuration': [200, { issuer: origin, token_endpoint: op.tokenURL }] } : {}));
    const error = await apiClient({ issuer: server.origin }, { tokenRetry: false }).get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect(error).toMatchObject({ status: 404, issuer: server.origin });
    ready = true;
    expect(await apiClient({ issuer: server.origin }).getJSON('me')).toMatchObject({ sub: 'service' });
  });

  it('retries a 5xx at discovery like a failed token request', async () => {
    let failures = 2;
    const server = await metadataServer((origin) => ({
      '/.well-known/openid-configuration': failures-- > 0 ? [503, {}] : [200, { issuer: origin, token_endpoint: op.tokenURL }],
    }));
    expect(await apiClient({ issuer: server.origin }).getJSON('me')).toMatchObject({ sub: 'service' });
    expect(metadataRequests(server)).toBeGreaterThanOrEqual(3);
  });

  it('refuses a plain-http token endpoint off loopback in the document', async () => {
    const server = await metadataServer((origin) => ({
      '/.well-known/openid-configuration': [200, { issuer: origin, token_endpoint: 'http://idp.example.com/token' }],
    }));
    const error = await apiClient({ issuer: server.origin }).get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DiscoveryError);
    expect((error as Error).message).toMatch(/token_endpoint must use https/);
  });

  it('gives buildAuthorizationURL the discovered authorization endpoint', async () => {
    const { url } = await buildAuthorizationURL({
      clientId: OIDC_CLIENTS.webApp.clientId, issuer: op.issuer, grantType: 'authorization_code', redirectURL: 'http://127.0.0.1/callback',
    });
    expect(url.startsWith(`${op.issuer}/auth?`)).toBe(true);
  });
});
