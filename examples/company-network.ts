// sluice behind a company network: a forward proxy, a private CA and a client certificate (mutual TLS).
// Everything runs locally: `node --import tsx examples/company-network.ts` (needs openssl and tinyproxy).
import { createClient, ProxyError } from '../packages/core/src/index.js';
import { createTestPKI, sendJSON, startForwardProxy, startServer } from '../packages/testkit/src/index.js';

// The company's PKI and an API that only talks to clients presenting a certificate the company CA signed.
const pki = await createTestPKI();
const api = await startServer((_req, res) => sendJSON(res, 200, { status: 'ok' }), {
  tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: true },
});
const proxy = await startForwardProxy({ auth: { username: 'svc-reporting', password: 'proxy-password' } });

const client = createClient({
  baseURL: `${api.origin}/api/v1`,
  // Or leave `proxy` out and set HTTPS_PROXY / NO_PROXY in the environment: 'env' is the default.
  proxy: proxy.url,
  tls: {
    ca: { path: pki.caPath },             // trusted next to Node's own roots
    cert: { path: pki.client.certPath },  // mutual TLS
    key: { path: pki.client.encryptedKeyPath },
    passphrase: pki.passphrase,
  },
});
console.log('GET health ->', await client.getJSON('health'));
console.log('CONNECT tunnels opened by the proxy:', await proxy.connects());

// A proxy that refuses the credentials is a ProxyError naming the proxy, never the password.
const refused = createClient({ baseURL: `${api.origin}/api/v1`, proxy: proxy.origin, tls: { ca: pki.ca } });
try {
  await refused.get('health');
} catch (error) {
  if (error instanceof ProxyError) console.log(`ProxyError ${error.status}: ${error.message}`);
}

await Promise.all([client.close(), refused.close()]);
await Promise.all([api.close(), proxy.close()]);
await pki.close();
