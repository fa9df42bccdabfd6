// NOT AN EXAMPLE: the local stand-ins the examples run against, so that each one runs on a laptop
// (an OData demo service, an API behind a company proxy and CA, an OpenID provider). They come from the
// repository's unpublished test kit. Against your own service, leave this file out and use its URLs:
// nothing in the examples' sluice code depends on it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestPKI, sendJSON, startForwardProxy, startServer } from '@sluice/testkit';

export { bearerAuthorizer, OIDC_CLIENTS, sluiceCLI, startODataServer, startOIDCProvider } from '@sluice/testkit';

/** A small users API (`GET /api/v1/users/<id>`, user 42 exists) on 127.0.0.1: for examples/core-quickstart.ts. */
export async function startUsersAPI(): Promise<{ baseURL: string; close(): Promise<void> }> {
  const users = new Map([[42, { id: 42, name: 'Ada Lovelace' }]]);
  const server = createServer((req, res) => {
    const user = users.get(Number(req.url?.split('/').pop()));
    res.writeHead(user ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(user ?? { error: 'not found' }));
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * A company network for examples/company-network.ts: a private CA, an HTTPS API that only accepts clients
 * presenting a certificate that CA signed (`GET /api/v1/health`), and a forward proxy (tinyproxy) that
 * wants credentials. Needs openssl and tinyproxy.
 */
export async function startCompanyNetwork(): Promise<{
  apiBaseURL: string;
  /** The proxy with its credentials (`http://user:password@host:port`), and without them. */
  proxyURL: string;
  proxyOrigin: string;
  /** The CA certificate (PEM) and the client's certificate and encrypted key, as files. */
  ca: string;
  caPath: string;
  certPath: string;
  keyPath: string;
  passphrase: string;
  /** CONNECT tunnels the proxy opened so far. */
  connects(): Promise<number>;
  close(): Promise<void>;
}> {
  const pki = await createTestPKI();
  const api = await startServer((_req, res) => sendJSON(res, 200, { status: 'ok' }), {
    tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
  });
  const proxy = await startForwardProxy({ auth: { username: 'svc-reporting', password: 'proxy-password' } });
  return {
    apiBaseURL: `${api.origin}/api/v1`,
    proxyURL: proxy.url,
    proxyOrigin: proxy.origin,
    ca: pki.ca,
    caPath: pki.caPath,
    certPath: pki.client.certPath,
    keyPath: pki.client.encryptedKeyPath,
    passphrase: pki.passphrase,
    connects: () => proxy.connects(),
    async close() {
      await Promise.all([api.close(), proxy.close()]);
      await pki.close();
    },
  };
}
