import { createClient, type Client } from '@sluice/core';
import { API_RESOURCE, OIDC_CLIENTS, OTHER_RESOURCE, startServer, type TestServer } from '@sluice/testkit';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { oauth2, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';
import { eventLog } from './events.js';
import { useProvider } from './provider-fixture.js';

const fx = useProvider();

function serviceConfig(extra: Partial<OAuth2Config> = {}): OAuth2Config {
  return {
    clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret,
    tokenURL: fx.op.tokenURL, grantType: 'client_credentials', scopes: ['api:read'], ...extra,
  };
}

function apiClient(config: OAuth2Config, options?: OAuth2Options): Client {
  const client = createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [oauth2(config, options)] });
  fx.track(client);
  return client;
}

describe('client credentials against oidc-provider', () => {
  it('fetches a token lazily on the first request and the API accepts it', async () => {
    const log = eventLog();
    const before = fx.op.tokenRequests();
    const client = apiClient(serviceConfig(), { onTokenEvent: log.onTokenEvent });
    expect(fx.op.tokenRequests()).toBe(before);
    const body = await client.getJSON<{ sub: string; client_id: string; scope: string }>('me');
    expect(body).toMatchObject({ sub: 'service', client_id: 'service', scope: 'api:read' });
    expect(fx.op.tokenRequests()).toBe(before + 1);
    expect(log.types()).toEqual(['TokenAcquired']);
    expect(log.events[0]!.expiresIn).toBe(300_000);
    expect(log.events[0]).not.toHaveProperty('error');
  });

  it('makes exactly one token request for 200 concurrent first requests', async () => {
    const before = fx.op.tokenRequests();
    const client = apiClient(serviceConfig());
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => client.getJSON<{ sub: string }>(`items/${i}`)));
    expect(results.every((r) => r.sub === 'service')).toBe(true);
    expect(fx.op.tokenRequests()).toBe(before + 1);
    const tokens = new Set(fx.api.requests.slice(-200).map((r) => r.token));
    expect(tokens.size).toBe(1);
  });

  it('reuses the cached token for later requests', async () => {
    const client = apiClient(serviceConfig());
    await client.get('one');
    const before = fx.op.tokenRequests();
    await client.get('two');
    await client.get('three');
    expect(fx.op.tokenRequests()).toBe(before);
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
      fx.track(client);
      await client.get('x');
      expect(decodeJwt(tokens[0]!).aud).toBe(OTHER_RESOURCE);
      const plain = createClient({ baseURL: echo.origin, plugins: [oauth2(serviceConfig())] });
      fx.track(plain);
      await plain.get('x');
      expect(decodeJwt(tokens[1]!).aud).toBe(API_RESOURCE);
    } finally {
      await echo.close();
    }
  });
});
