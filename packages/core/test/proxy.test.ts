import { connect, type AddressInfo } from 'node:net';
import { createServer as createTLSServer, type Server as TLSServer } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPKI, sendJSON, startForwardProxy, startServer, type ForwardProxy, type TestPKI, type TestServer } from '@sluice/testkit';
import { createClient, NetworkError, ProxyError, type ClientOptions } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const PROXY_USER = 'alice';
const PROXY_PASSWORD = 'proxy-pass-5d2a';
const API_TOKEN = 'api-token-never-on-the-proxy-81f0';

let pki: TestPKI;
let api: TestServer;
let plainAPI: TestServer;
let proxy: ForwardProxy;
let authProxy: ForwardProxy;
beforeAll(async () => {
  pki = await createTestPKI();
  [api, plainAPI, proxy, authProxy] = await Promise.all([
    startServer((_req, res) => sendJSON(res, 200, { ok: true }), { tls: { cert: pki.server.cert, key: pki.server.key } }),
    startServer((_req, res) => sendJSON(res, 200, { ok: true })),
    startForwardProxy(),
    startForwardProxy({ auth: { username: PROXY_USER, password: PROXY_PASSWORD } }),
  ]);
});
afterAll(async () => {
  await Promise.all([api.close(), plainAPI.close(), proxy.close(), authProxy.close()]);
  await pki.close();
});

const track = closeAfterEach();
const ENV_NAMES = ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy'];
const savedEnv = new Map(ENV_NAMES.map((name) => [name, process.env[name]]));
afterEach(() => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function client(options: ClientOptions) {
  return track(createClient({ tls: { ca: pki.ca }, ...options }));
}

/** CONNECTs a proxy received during `run`. */
async function connectsDuring(server: ForwardProxy, run: () => Promise<unknown>): Promise<number> {
  const before = await server.connects();
  await run();
  return (await server.connects()) - before;
}

describe('proxy: an explicit URL', () => {
  it('tunnels https requests through the proxy with CONNECT, one tunnel per keep-alive connection', async () => {
    const c = client({ baseURL: api.origin, proxy: authProxy.url });
    const opened = api.connections();
    const connects = await connectsDuring(authProxy, async () => {
      for (let i = 0; i < 4; i++) expect(await c.getJSON('things')).toEqual({ ok: true });
    });
    expect(connects).toBeGreaterThan(0);
    expect(connects).toBe(api.connections() - opened);
    expect(connects).toBeLessThan(4);
  });

  it('sends the proxy credentials to the proxy only, and the target credentials never in the clear to the proxy', async () => {
    const c = client({ baseURL: api.origin, proxy: authProxy.url, headers: { authorization: `Bearer ${API_TOKEN}` } });
    const seen = api.requests.length;
    await c.getJSON('secret');
    const atTarget = api.requests.slice(seen);
    expect(atTarget).toHaveLength(1);
    expect(atTarget[0]!.headers['authorization']).toBe(`Bearer ${API_TOKEN}`);
    expect(atTarget[0]!.headers['proxy-authorization']).toBeUndefined();
    const log = await authProxy.log();
    expect(log).toContain('CONNECT 127.0.0.1');
    expect(log).not.toContain(API_TOKEN);
    expect(log).not.toContain('/secret');
  });

  it('tunnels plain http targets too, so the proxy never reads the request', async () => {
    const c = client({ baseURL: plainAPI.origin, proxy: proxy.url, headers: { authorization: `Bearer ${API_TOKEN}` } });
    const connects = await connectsDuring(proxy, () => c.getJSON('plain'));
    expect(connects).toBe(1);
    expect(await proxy.log()).not.toContain(API_TOKEN);
  });

  it('fails with ProxyError 407 when the proxy wants credentials and none are given, without retrying', async () => {
    const c = client({ baseURL: api.origin, proxy: authProxy.origin, retry: { maxAttempts: 3, waitBase: 1 } });
    let error: unknown;
    const connects = await connectsDuring(authProxy, async () => {
      error = await c.get('x').catch((e: unknown) => e);
    });
    expect(error).toBeInstanceOf(ProxyError);
    expect(error).toBeInstanceOf(NetworkError);
    const proxyError = error as ProxyError;
    expect(proxyError.status).toBe(407);
    expect(proxyError.refused).toBe(true);
    expect(proxyError.proxy).toBe(authProxy.origin);
    expect(proxyError.message).toContain(`the proxy ${authProxy.origin} asks for credentials (407`);
    expect(connects).toBe(1);
  });

  it('fails with ProxyError when the proxy refuses the credentials, naming the proxy without any password', async () => {
    const wrong = authProxy.url.replace(PROXY_PASSWORD, 'wrong-password-77');
    const c = client({ baseURL: api.origin, proxy: wrong, retry: { maxAttempts: 3, waitBase: 1 } });
    let error: unknown;
    const connects = await connectsDuring(authProxy, async () => {
      error = await c.get('x').catch((e: unknown) => e);
    });
    const proxyError = error as ProxyError;
    expect(proxyError).toBeInstanceOf(ProxyError);
    // tinyproxy answers 401 to wrong credentials, other proxies 407: both are a refusal.
    expect([401, 407]).toContain(proxyError.status);
    expect(proxyError.refused).toBe(true);
    expect(proxyError.message).toContain(`the proxy ${authProxy.origin} did not accept the credentials`);
    expect(proxyError.message).not.toContain('wrong-password-77');
    expect(JSON.stringify(proxyError)).not.toContain('wrong-password-77');
    expect(String(proxyError.stack)).not.toContain('wrong-password-77');
    expect(connects).toBe(1);
  });

  it('fails with a retried ProxyError when the proxy cannot be reached', async () => {
    const down = await startServer(() => undefined);
    const downURL = down.origin;
    await down.close();
    const c = client({ baseURL: api.origin, proxy: `http://user:pw-do-not-show@${downURL.slice('http://'.length)}`, retry: { maxAttempts: 2, waitBase: 1 } });
    const error = await c.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProxyError);
    expect((error as ProxyError).status).toBeUndefined();
    expect((error as ProxyError).code).toBe('ECONNREFUSED');
    expect((error as ProxyError).message).toContain(`the proxy ${downURL} could not be reached`);
    expect((error as ProxyError).message).not.toContain('pw-do-not-show');
  });
});

describe("proxy: 'env' (the default)", () => {
  it('sends https requests through HTTPS_PROXY', async () => {
    process.env['HTTPS_PROXY'] = proxy.url;
    const c = client({ baseURL: api.origin });
    expect(await connectsDuring(proxy, () => c.getJSON('via-env'))).toBe(1);
  });

  it('uses HTTP_PROXY for http targets and for https targets when HTTPS_PROXY is unset, as undici does', async () => {
    process.env['HTTP_PROXY'] = proxy.url;
    const c = client({ baseURL: plainAPI.origin });
    const secure = client({ baseURL: api.origin });
    expect(await connectsDuring(proxy, async () => {
      await c.getJSON('a');
      await secure.getJSON('b');
    })).toBe(2);
  });

  it('prefers the lower-case variable, as curl does', async () => {
    process.env['HTTPS_PROXY'] = 'http://127.0.0.1:1';
    process.env['https_proxy'] = proxy.url;
    const c = client({ baseURL: api.origin });
    expect(await connectsDuring(proxy, () => c.getJSON('lower'))).toBe(1);
  });

  it.each([
    ['an exact host', '127.0.0.1'],
    ['a CIDR range', '10.0.0.0/8, 127.0.0.0/8'],
    ['a host with its port', () => `example.com, 127.0.0.1:${api.port}`],
    ['the wildcard', '*'],
  ])('connects directly to targets NO_PROXY lists: %s', async (_name, rule) => {
    process.env['HTTPS_PROXY'] = proxy.url;
    process.env['NO_PROXY'] = typeof rule === 'function' ? rule() : rule;
    const c = client({ baseURL: api.origin });
    expect(await connectsDuring(proxy, () => c.getJSON('direct'))).toBe(0);
  });

  it('still proxies a target whose port NO_PROXY does not list', async () => {
    process.env['HTTPS_PROXY'] = proxy.url;
    process.env['NO_PROXY'] = `127.0.0.1:${api.port + 1}`;
    const c = client({ baseURL: api.origin });
    expect(await connectsDuring(proxy, () => c.getJSON('proxied'))).toBe(1);
  });

  it('reads the environment once, when the client is created', async () => {
    process.env['HTTPS_PROXY'] = proxy.url;
    const c = client({ baseURL: api.origin });
    delete process.env['HTTPS_PROXY'];
    expect(await connectsDuring(proxy, () => c.getJSON('snapshot'))).toBe(1);
  });
});

describe('proxy: false', () => {
  it('connects directly whatever the environment says', async () => {
    process.env['HTTPS_PROXY'] = proxy.url;
    const c = client({ baseURL: api.origin, proxy: false });
    expect(await connectsDuring(proxy, () => c.getJSON('direct'))).toBe(0);
  });
});

describe('an https:// proxy', () => {
  /** A TLS front for the tinyproxy: the proxy connection itself is encrypted with the PKI's server certificate. */
  async function tlsFront(): Promise<{ url: string; close(): Promise<void> }> {
    const sockets = new Set<import('node:net').Socket>();
    const front: TLSServer = createTLSServer({ cert: pki.server.cert, key: pki.server.key }, (socket) => {
      const upstream = connect(proxy.port, '127.0.0.1');
      sockets.add(socket).add(upstream);
      socket.pipe(upstream).pipe(socket);
      const drop = (): void => { socket.destroy(); upstream.destroy(); };
      socket.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
    });
    front.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    return {
      url: `https://127.0.0.1:${(front.address() as AddressInfo).port}`,
      close: () => new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        front.close(() => resolve());
      }),
    };
  }

  it('is reached over TLS, checked against tls.ca like the target', async () => {
    const front = track(await tlsFront());
    const c = client({ baseURL: api.origin, proxy: front.url });
    expect(await connectsDuring(proxy, () => c.getJSON('over-tls'))).toBe(1);
  });

  it('whose certificate is not trusted fails without sending anything', async () => {
    const front = track(await tlsFront());
    const c = track(createClient({ baseURL: api.origin, proxy: front.url, retry: false }));
    let error: unknown;
    const connects = await connectsDuring(proxy, async () => {
      error = await c.get('x').catch((e: unknown) => e);
    });
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/);
    expect(connects).toBe(0);
  });
});
