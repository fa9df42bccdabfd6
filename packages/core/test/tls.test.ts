import { rootCertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPKI, sendJSON, startServer, type TestPKI, type TestServer } from '@sluice/testkit';
import { createClient, NetworkError, UndiciTransport, type ClientOptions, type SluiceEvent } from '@sluice/core';
import { resolveTLS } from '../src/transport/tls.js';
import { closeAfterEach } from './close-after-each.js';

let pki: TestPKI;
let named: TestPKI;
let api: TestServer;
let mtlsAPI: TestServer;
let namedAPI: TestServer;
let tls12API: TestServer;
beforeAll(async () => {
  [pki, named] = await Promise.all([createTestPKI(), createTestPKI({ serverNames: ['api.internal'], onlyServerNames: true })]);
  const answer = (_req: unknown, res: Parameters<typeof sendJSON>[0]): void => sendJSON(res, 200, { ok: true });
  [api, mtlsAPI, namedAPI, tls12API] = await Promise.all([
    startServer(answer, { tls: { cert: pki.server.cert, key: pki.server.key } }),
    startServer(answer, { tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true } }),
    startServer(answer, { tls: { cert: named.server.cert, key: named.server.key } }),
    startServer(answer, { tls: { cert: pki.server.cert, key: pki.server.key, maxVersion: 'TLSv1.2' } }),
  ]);
});
afterAll(async () => {
  await Promise.all([api.close(), mtlsAPI.close(), namedAPI.close(), tls12API.close()]);
  await Promise.all([pki.close(), named.close()]);
});

const track = closeAfterEach();
const client = (options: ClientOptions) => track(createClient({ proxy: false, retry: false, ...options }));

describe('tls.ca', () => {
  it('trusts a server whose certificate the given CA signed', async () => {
    expect(await client({ baseURL: api.origin, tls: { ca: pki.ca } }).getJSON('x')).toEqual({ ok: true });
  });

  it('reads the CA from a file given as { path }', async () => {
    expect(await client({ baseURL: api.origin, tls: { ca: { path: pki.caPath } } }).getJSON('x')).toEqual({ ok: true });
  });

  it('refuses the same server without it: verification is on by default', async () => {
    const error = await client({ baseURL: api.origin }).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/);
  });

  it('is added to the default roots unless includeDefaultCA is false', () => {
    const added = resolveTLS('tls', { ca: pki.ca })!.connect.ca as string[];
    expect(added).toContain(rootCertificates[0]);
    expect(added.at(-1)!.trim()).toBe(pki.ca.trim());
    const only = resolveTLS('tls', { ca: pki.ca, includeDefaultCA: false })!.connect.ca as string[];
    expect(only.map((c) => c.trim())).toEqual([pki.ca.trim()]);
  });

  it('with includeDefaultCA false, trusts nothing else', async () => {
    const error = await client({ baseURL: api.origin, tls: { ca: named.ca, includeDefaultCA: false } }).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
  });
});

describe('mutual TLS', () => {
  it('presents the client certificate (cert + key) to a server that requires one', async () => {
    const seen = mtlsAPI.requests.length;
    await client({ baseURL: mtlsAPI.origin, tls: { ca: pki.ca, cert: pki.client.cert, key: pki.client.key } }).getJSON('x');
    expect(mtlsAPI.requests[seen]!.clientCertificate).toBe('sluice-client');
  });

  it('opens an encrypted key with the passphrase, from files', async () => {
    const tls = { ca: { path: pki.caPath }, cert: { path: pki.client.certPath }, key: { path: pki.client.encryptedKeyPath }, passphrase: pki.passphrase };
    expect(await client({ baseURL: mtlsAPI.origin, tls }).getJSON('x')).toEqual({ ok: true });
  });

  it('presents a PKCS#12 bundle (pfx)', async () => {
    const seen = mtlsAPI.requests.length;
    await client({ baseURL: mtlsAPI.origin, tls: { ca: pki.ca, pfx: pki.client.pfx, passphrase: pki.passphrase } }).getJSON('x');
    expect(mtlsAPI.requests[seen]!.clientCertificate).toBe('sluice-client');
  });

  it('is refused by the server without a client certificate', async () => {
    const seen = mtlsAPI.requests.length;
    const error = await client({ baseURL: mtlsAPI.origin, tls: { ca: pki.ca } }).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(mtlsAPI.requests.length).toBe(seen);
  });

  it('is refused by the server with a certificate from another CA', async () => {
    const seen = mtlsAPI.requests.length;
    const tls = { ca: pki.ca, cert: pki.stranger.cert, key: pki.stranger.key };
    const error = await client({ baseURL: mtlsAPI.origin, tls }).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect(mtlsAPI.requests.length).toBe(seen);
  });

  it('works on a transport built with the same options', async () => {
    const transport = track(new UndiciTransport({ proxy: false, tls: { ca: pki.ca, cert: pki.client.cert, key: pki.client.key } }));
    const c = track(createClient({ baseURL: mtlsAPI.origin, transport }));
    expect(await c.getJSON('x')).toEqual({ ok: true });
    expect(c.transport).toBe(transport);
  });
});

describe('tls.servername and tls.minVersion', () => {
  it('checks the certificate against servername when the URL host differs', async () => {
    const refused = await client({ baseURL: namedAPI.origin, tls: { ca: named.ca } }).get('x').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NetworkError);
    const c = client({ baseURL: namedAPI.origin, tls: { ca: named.ca, servername: 'api.internal' } });
    expect(await c.getJSON('x')).toEqual({ ok: true });
  });

  it('refuses a server that only speaks a version below minVersion', async () => {
    expect(await client({ baseURL: tls12API.origin, tls: { ca: pki.ca } }).getJSON('x')).toEqual({ ok: true });
    const error = await client({ baseURL: tls12API.origin, tls: { ca: pki.ca, minVersion: 'TLSv1.3' } }).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
  });
});

describe('tls.insecureSkipVerify', () => {
  it('accepts an unknown certificate and reports a tls.insecure event when the client is created', async () => {
    const events: SluiceEvent[] = [];
    const c = client({ baseURL: api.origin, tls: { insecureSkipVerify: true }, onEvent: (e) => events.push(e) });
    expect(events).toEqual([{ type: 'tls.insecure', option: 'tls.insecureSkipVerify' }]);
    expect(await c.getJSON('x')).toEqual({ ok: true });
  });

  it('is the only way to turn verification off: a client without it reports nothing', () => {
    const events: SluiceEvent[] = [];
    client({ baseURL: api.origin, tls: { ca: pki.ca }, onEvent: (e) => events.push(e) });
    expect(events).toEqual([]);
  });
});
