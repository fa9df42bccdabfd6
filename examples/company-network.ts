// sluice behind a company network: a forward proxy, a private CA and a client certificate (mutual TLS).
// Everything runs locally: `node --import tsx examples/company-network.ts` (needs openssl and tinyproxy).
import { createClient, ProxyError } from '@sluice/core';
import { startCompanyNetwork } from './demo-servers.js'; // local stand-ins for your API, proxy and CA

const net = await startCompanyNetwork();

const client = createClient({
  baseURL: net.apiBaseURL,
  // Or leave `proxy` out and set HTTPS_PROXY / NO_PROXY in the environment: 'env' is the default.
  proxy: net.proxyURL,
  tls: {
    ca: { path: net.caPath },       // trusted next to Node's own roots
    cert: { path: net.certPath },   // mutual TLS
    key: { path: net.keyPath },
    passphrase: net.passphrase,
  },
});
console.log('GET health ->', await client.getJSON('health'));
console.log('CONNECT tunnels opened by the proxy:', await net.connects());

// A proxy that refuses the credentials is a ProxyError naming the proxy, never the password.
const refused = createClient({ baseURL: net.apiBaseURL, proxy: net.proxyOrigin, tls: { ca: net.ca } });
try {
  await refused.get('health');
} catch (error) {
  if (error instanceof ProxyError) console.log(`ProxyError ${error.status}: ${error.message}`);
}

await Promise.all([client.close(), refused.close()]);
await net.close();
