// `npm start`: the main job on the embedded demo. Starts a local OpenID provider and the OData demo
// service behind it (500,000 generated products, every request needs a valid OAuth access token) on
// 127.0.0.1, then runs the real `sluice export` as a child process with client credentials: progress
// bar, file in a temporary folder, and the exporter's own summary (records/s, peak memory).
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerAuthorizer, OIDC_CLIENTS, sluiceCLI, startODataServer, startOIDCProvider } from './demo-servers.js';

const RECORDS = Number(process.env.DEMO_RECORDS ?? 500_000);
const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[22m` : s);
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[22m` : s);

const [op, cli, dir] = await Promise.all([startOIDCProvider(), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-demo-'))]);
const service = await startODataServer({ products: RECORDS, pageSize: 5000, authorize: bearerAuthorizer(op.issuer) });
const out = join(dir, 'products.ndjson');
const { clientId, clientSecret } = OIDC_CLIENTS.service;

console.log(`${bold('sluice demo')}: ${RECORDS.toLocaleString('en-US')} products in an OData v4 service that accepts only OAuth access tokens`);
console.log(dim(`  service         ${service.v4}`));
console.log(dim(`  token endpoint  ${op.tokenURL} (client ${clientId}, secret in SLUICE_CLIENT_SECRET)`));
console.log(`\n$ ${bold(`sluice export ${service.v4} Products --out ${out}`)}`);

// Ctrl-C reaches the exporter too: it stops cleanly (exit 130), then the demo closes its servers.
process.on('SIGINT', () => undefined);
const child = spawn(process.execPath, [cli.path, 'export', service.v4, 'Products', '--out', out], {
  stdio: ['ignore', 'inherit', 'inherit'],
  env: { ...process.env, SLUICE_CLIENT_ID: clientId, SLUICE_CLIENT_SECRET: clientSecret, SLUICE_TOKEN_URL: op.tokenURL },
});
const code = await new Promise<number>((resolve) => child.on('close', (c, signal) => resolve(c ?? (signal === 'SIGINT' ? 130 : 1))));

try {
  if (code === 0) {
    const file = await open(out);
    const first = (await file.read(Buffer.alloc(400), 0, 400, 0)).buffer.toString('utf8').split('\n')[0];
    await file.close();
    console.log(dim(`  ${((await stat(out)).size / 2 ** 20).toFixed(0)} MiB written; first record: ${first}`));
    console.log(dim(`  ${op.grants.length} token request for ${service.requests.length} service requests`));
    console.log(`\n${bold('try next')} (against any OData service, e.g. the public Northwind one; \`npm run build\` first for \`npx sluice\`):`);
    const northwind = 'https://services.odata.org/V4/Northwind/Northwind.svc/';
    console.log(`  npx sluice metadata ${northwind}`);
    console.log(`  npx sluice count ${northwind} Orders --filter "ShipCountry eq 'France'"`);
    console.log(`  npx sluice export ${northwind} Orders --select OrderID,CustomerID,ShipCity --format csv --out orders.csv`);
  }
} finally {
  await service.close();
  await op.close();
  await rm(dir, { recursive: true, force: true });
}
process.exitCode = code;
