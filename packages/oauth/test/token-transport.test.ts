import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, createClient, UndiciTransport, type ClientOptions } from '@sluice/core';
import { oauth2, TokenRequestError, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';
import {
  createTestPKI, MTLS_CLIENT, OIDC_CLIENTS, sendJSON, startForwardProxy, startMTLSProvider, startOIDCProvider, startServer,
  type ForwardProxy, type MTLSProvider, type OIDCProvider, type TestPKI, type TestServer,
} from '@sluice/testkit';
import { closeAfterEach } from '../../core/test/close-after-each.js';

let pki: TestPKI;
let op: OIDCProvider;
let mtlsOP: MTLSProvider;
let api: TestServer;
let mtlsAPI: TestServer;
let proxy: ForwardProxy;
beforeAll(async () => {
  pki = await createTestPKI();
  const answer = (_req: unknown, res: Parameters<typeof sendJSON>[0]): void => sendJSON(res, 200, { ok: true });
  [op, mtlsOP, api, mtlsAPI, proxy] = await Promise.all([
    startOIDCProvider(),
    startMTLSProvider(pki),
    startServer(answer, { tls: { cert: pki.server.cert, key: pki.server.key } }),
    startServer(answer, { tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true } }),
    startForwardProxy(),
  ]);
});
afterAll(async () => {
  await Promise.all([op.close(), mtlsOP.close(), api.close(), mtlsAPI.close(), proxy.close()]);
  await pki.close();
});

const track = closeAfterEach();
const service: OAuth2Config = {
  clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret,
  tokenURL: '', grantType: 'client_credentials', scopes: ['api:read'],
};
const mtlsService = (): OAuth2Config => ({
  clientId: MTLS_CLIENT.clientId, tokenURL: mtlsOP.tokenURL, grantType: 'client_credentials', tokenEndpointAuthMethod: 'tls_client_auth',
});
const client = (options: ClientOptions, config: OAuth2Config, pluginOptions?: OAuth2Options) =>
  track(createClient({ retry: false, ...options, plugins: [oauth2(config, { tokenRetry: false, ...pluginOptions })] }));
const port = (origin: string): string => new URL(origin).port;

/** The `host:port`s the proxy was asked to CONNECT to while `run` ran. */
async function tunnelsDuring(run: () => Promise<unknown>): Promise<string[]> {
  const before = (await proxy.log()).length;
  await run();
  return [...(await proxy.log()).slice(before).matchAll(/CONNECT (\S+) HTTP/g)].map((m) => m[1]!);
}

describe('token requests travel like the API requests by default', () => {
  it("go through the API client's proxy", async () => {
    const c = client({ baseURL: api.origin, proxy: proxy.url, tls: { ca: pki.ca } }, { ...service, tokenURL: op.tokenURL });
    const tunnels = await tunnelsDuring(() => c.getJSON('orders'));
    expect(tunnels).toContain(`127.0.0.1:${port(op.issuer)}`);
    expect(tunnels).toContain(`127.0.0.1:${port(api.origin)}`);
    expect(api.requests.at(-1)!.headers['authorization']).toMatch(/^Bearer /);
  });

  it("trust the API client's CA and present its certificate: tls_client_auth (RFC 8705) with one tls setting", async () => {
    const seen = mtlsOP.tokenRequests.length;
    const c = client({ baseURL: mtlsAPI.origin, proxy: false, tls: { ca: pki.ca, cert: pki.client.cert, key: pki.client.key } }, mtlsService());
    expect(await c.getJSON('orders')).toEqual({ ok: true });
    const [request] = mtlsOP.tokenRequests.slice(seen);
    expect(request).toMatchObject({ clientCertificate: 'sluice-client', status: 200, form: { grant_type: 'client_credentials', client_id: MTLS_CLIENT.clientId } });
    expect(request!.form).not.toHaveProperty('client_secret');
    expect(mtlsOP.grants.at(-1)).toBe(MTLS_CLIENT.clientId);
    expect(mtlsAPI.requests.at(-1)).toMatchObject({ clientCertificate: 'sluice-client', headers: { authorization: expect.stringMatching(/^Bearer /) } });
  });

  it("discover the issuer's endpoints over the same transport, and take the mTLS alias of the token endpoint (RFC 8705 5)", async () => {
    const { tokenURL: _unused, ...discovered } = mtlsService();
    const c = client({ baseURL: mtlsAPI.origin, proxy: false, tls: { ca: pki.ca, cert: pki.client.cert, key: pki.client.key } }, { ...discovered, issuer: mtlsOP.issuer });
    expect(await c.getJSON('orders')).toEqual({ ok: true });
    expect(mtlsOP.tokenRequests.at(-1)).toMatchObject({ status: 200, host: `localhost:${port(mtlsOP.issuer)}` });
  });
});

describe('tokenTransport', () => {
  it('with transport options, sends token requests its own way (here: directly, while the API goes through the proxy)', async () => {
    const c = client({ baseURL: api.origin, proxy: proxy.url, tls: { ca: pki.ca } }, { ...service, tokenURL: op.tokenURL }, { tokenTransport: { proxy: false } });
    const tunnels = await tunnelsDuring(() => c.getJSON('orders'));
    expect(tunnels).toEqual([`127.0.0.1:${port(api.origin)}`]);
  });

  it('with a transport of your own, uses it and leaves closing it to you', async () => {
    const tokens = track(new UndiciTransport({ proxy: proxy.url }));
    const c = client({ baseURL: api.origin, proxy: false, tls: { ca: pki.ca } }, { ...service, tokenURL: op.tokenURL }, { tokenTransport: tokens });
    const tunnels = await tunnelsDuring(() => c.getJSON('orders'));
    expect(tunnels).toEqual([`127.0.0.1:${port(op.issuer)}`]);
    await c.close();
    const after = createClient({ transport: tokens, retry: false, throwHttpErrors: false });
    expect((await after.get(`${op.issuer}/.well-known/openid-configuration`)).status).toBe(200);
    await after.close();
  });

  it('carries the client certificate for tls_client_auth when only the token endpoint wants one', async () => {
    const tokenTransport = { proxy: false as const, tls: { ca: pki.ca, cert: { path: pki.client.certPath }, key: { path: pki.client.keyPath } } };
    const c = client({ baseURL: api.origin, proxy: false, tls: { ca: pki.ca } }, mtlsService(), { tokenTransport });
    expect(await c.getJSON('orders')).toEqual({ ok: true });
    expect(mtlsOP.tokenRequests.at(-1)).toMatchObject({ clientCertificate: 'sluice-client', status: 200 });
  });

  it('reports a bad certificate under its own name, at construction', () => {
    const missing = `${pki.dir}/nope.pem`;
    const make = () => oauth2(mtlsService(), { tokenTransport: { tls: { cert: { path: missing }, key: pki.client.key } } });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(`tokenTransport.tls.cert could not be read from ${missing} (ENOENT)`);
  });

  it('refuses unknown keys with a hint', () => {
    expect(() => oauth2(mtlsService(), { tokenTransport: { proxi: false } as never })).toThrow('tokenTransport.proxi is not an option of tokenTransport; did you mean tokenTransport.proxy?');
  });
});

describe('tls_client_auth', () => {
  it('is a ConfigError at construction when the token transport has no client certificate', () => {
    let error: unknown;
    try {
      client({ baseURL: mtlsAPI.origin, proxy: false, tls: { ca: pki.ca } }, mtlsService());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe('tokenEndpointAuthMethod');
    expect((error as ConfigError).message).toContain('tls_client_auth needs a TLS client certificate');
  });

  it('is refused by the server for a certificate of another CA: invalid_client, no token', async () => {
    const tls = { ca: pki.ca, cert: pki.stranger.cert, key: pki.stranger.key };
    const c = client({ baseURL: api.origin, proxy: false, tls: { ca: pki.ca } }, mtlsService(), { tokenTransport: { proxy: false, tls } });
    const error = await c.get('orders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).status).toBe(401);
    expect((error as TokenRequestError).error).toBe('invalid_client');
  });

  it('does not take a client secret', () => {
    expect(() => oauth2({ ...mtlsService(), clientSecret: 'x' })).toThrow(ConfigError);
  });
});
