import { createClient, type Client } from '@sluice/core';
import {
  API_RESOURCE, OIDC_CLIENTS, OTHER_RESOURCE, startOIDCProvider, startProtectedAPI, startServer,
  type OIDCProvider, type ProtectedAPI, type TestServer,
} from '@sluice/testkit';
import { decodeJwt } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { oauth2, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';
import { eventLog } from './events.js';

let op: OIDCProvider;
let api: ProtectedAPI;
let clients: Client[] = [];
beforeAll(async () => {
  op = await startOIDCProvider({ accessTokenTTL: 300 });
  api = await startProtectedAPI(op.issuer);
});
afterAll(async () => {
  await api.close();
  await op.close();
});
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
});

function serviceConfig(extra: Partial<OAuth2Config> = {}): OAuth2Config {
  return {
    clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret,
    tokenURL: op.tokenURL, grantType: 'client_credentials', scopes: ['api:read'], ...extra,
  };
}

function apiClient(config: OAuth2Config, options?: OAuth2Options): Client {
  const client = createClient({ baseURL: `${api.origin}/v1`, plugins: [oauth2(config, options)] });
  clients.push(client);
  return client;
}

describe('client credentials against oidc-provider', () => {
  it('fetches a token lazily on the first request and the API accepts it', async () => {
    const log = eventLog();
    const before = op.tokenRequests();
    const client = apiClient(serviceConfig(), { onTokenEvent: log.onTokenEvent });
    expect(op.tokenRequests()).toBe(before);
    const body = await client.getJSON<{ sub: string; client_id: string; scope: string }>('me');
    expect(body).toMatchObject({ sub: 'service', client_id: 'service', scope: 'api:read' });
    expect(op.tokenRequests()).toBe(before + 1);
    expect(log.types()).toEqual(['TokenAcquired']);
    expect(log.events[0]!.expiresIn).toBe(300_000);
    expect(log.events[0]).not.toHaveProperty('error');
  });

  it('makes exactly one token request for 200 concurrent first requests', async () => {
    const before = op.tokenRequests();
    const client = apiClient(serviceConfig());
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => client.getJSON<{ sub: string }>(`items/${i}`)));
    expect(results.every((r) => r.sub === 'service')).toBe(true);
    expect(op.tokenRequests()).toBe(before + 1);
    const tokens = new Set(api.requests.slice(-200).map((r) => r.token));
    expect(tokens.size).toBe(1);
  });

  it('reuses the cached token for later requests', async () => {
    const client = apiClient(serviceConfig());
    await client.get('one');
    const before = op.tokenRequests();
    await client.get('two');
    await client.get('three');
    expect(op.tokenRequests()).toBe(before);
  });

  it('never sends the token to another origin', async () => {
    const other: TestServer = await startServer((_req, res) => {
      res.end('ok');
    });
    try {
      const client = apiClient(serviceConfig());
      await client.get('me');
      await client.get(`${other.origin}/elsewhere`);
      expect(other.requests).toHaveLength(1);
      expect(other.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('works with client_secret_post', async () => {
    const client = apiClient(serviceConfig({
      clientId: OIDC_CLIENTS.servicePost.clientId, clientSecret: OIDC_CLIENTS.servicePost.clientSecret, tokenEndpointAuthMethod: 'client_secret_post',
    }));
    expect(await client.getJSON('me')).toMatchObject({ client_id: 'service-post' });
  });

  it('sends extraParams to the token endpoint (a resource indicator picks the audience)', async () => {
    const tokens: string[] = [];
    const echo = await startServer((req, res) => {
      tokens.push(req.headers.authorization!.slice(7));
      res.end('ok');
    });
    try {
      const client = createClient({ baseURL: echo.origin, plugins: [oauth2(serviceConfig({ extraParams: { resource: OTHER_RESOURCE } }))] });
      clients.push(client);
      await client.get('x');
      expect(decodeJwt(tokens[0]!).aud).toBe(OTHER_RESOURCE);
      const plain = createClient({ baseURL: echo.origin, plugins: [oauth2(serviceConfig())] });
      clients.push(plain);
      await plain.get('x');
      expect(decodeJwt(tokens[1]!).aud).toBe(API_RESOURCE);
    } finally {
      await echo.close();
    }
  });
});
