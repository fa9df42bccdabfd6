// OAuth plugin benchmark: what attaching the token costs per request (against the same requests without
// the plugin, interleaved rounds, as a ratio) and how many token requests 1000 concurrent first requests
// make at a real oidc-provider (single flight: one).
import { createClient, type Client, type PluginRequest } from '@sluice/core';
import { oauth2, type OAuth2Plugin } from '@sluice/oauth';
import { OIDC_CLIENTS, sendJSON, startOIDCProvider, startServer } from '@sluice/testkit';

/** Suite name for bench/run.ts. */
export const name = 'oauth';

const ROUNDS = 9;
const REQUESTS = 4000;
const CONCURRENCY = 8;

async function burst(client: Client, count: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < count) await (await client.get('items')).text();
  }));
  return performance.now() - started;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs the suite and returns its Markdown section. */
export async function run(): Promise<string> {
  // A JWT-sized token: the baseline client sends the very same header statically, so the comparison
  // isolates what the plugin itself costs from what carrying an 800-byte header costs.
  const token = 'x'.repeat(800);
  const server = await startServer((req, res) => {
    if (req.url === '/token') sendJSON(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600 });
    else sendJSON(res, 200, { id: 1, name: 'item' });
  });
  const plugin = oauth2({ clientId: 'bench', clientSecret: 's', tokenURL: `${server.origin}/token`, grantType: 'client_credentials' });
  const plain = createClient({ baseURL: `${server.origin}/v1`, headers: { authorization: `Bearer ${token}` } });
  const withOAuth = createClient({ baseURL: `${server.origin}/v1`, plugins: [plugin] });

  // Warm up both (connections, JIT, and the token).
  await burst(plain, 500);
  await burst(withOAuth, 500);
  const plainTimes: number[] = [];
  const oauthTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const order: [Client, number[]][] = round % 2 === 0 ? [[plain, plainTimes], [withOAuth, oauthTimes]] : [[withOAuth, oauthTimes], [plain, plainTimes]];
    for (const [client, times] of order) times.push(await burst(client, REQUESTS));
    server.requests.length = 0;
  }
  const plainPerRequest = (median(plainTimes) * 1000) / REQUESTS;
  const oauthPerRequest = (median(oauthTimes) * 1000) / REQUESTS;

  // The attach step alone: the plugin's onRequest on a request to the API origin, token held.
  const request = { method: 'GET', url: `${server.origin}/v1/items`, origin: server.origin, headers: {}, body: undefined, signal: undefined, context: {}, resends: 0 } as PluginRequest;
  const calls = 1_000_000;
  const hook = (plugin as OAuth2Plugin).onRequest!;
  for (let i = 0; i < 100_000; i++) hook(request, withOAuth);
  const attachStart = performance.now();
  for (let i = 0; i < calls; i++) hook(request, withOAuth);
  const attachNs = ((performance.now() - attachStart) * 1e6) / calls;
  await plain.close();
  await withOAuth.close();
  await server.close();

  // 1000 concurrent first requests against a real authorization server.
  const op = await startOIDCProvider();
  const api = await startServer((_req, res) => sendJSON(res, 200, { ok: true }));
  const fresh = createClient({
    baseURL: api.origin,
    plugins: [oauth2({
      clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret, tokenURL: op.tokenURL,
      grantType: 'client_credentials', scopes: ['api:read'],
    })],
  });
  const before = op.tokenRequests();
  const firstStart = performance.now();
  await Promise.all(Array.from({ length: 1000 }, async (_, i) => (await fresh.get(`items/${i}`)).text()));
  const firstMs = performance.now() - firstStart;
  const tokenRequests = op.tokenRequests() - before;
  const bearerRequests = api.requests.filter((r) => r.headers.authorization?.startsWith('Bearer ')).length;
  await fresh.close();
  await api.close();
  await op.close();

  const ratios = plainTimes.map((t, i) => oauthTimes[i]! / t);
  const pairedRatio = median(ratios);
  const overhead = (pairedRatio - 1) * 100;
  const attachShare = (attachNs / 1000 / plainPerRequest) * 100;
  return [
    '## oauth',
    '',
    `Token attach overhead: ${ROUNDS} interleaved rounds of ${REQUESTS} small-JSON GETs (concurrency ${CONCURRENCY}) on loopback, medians.`,
    '',
    '| client | µs per request | ratio |',
    '|---|---:|---:|',
    `| core, same bearer header set statically | ${plainPerRequest.toFixed(1)} | 1.000 |`,
    `| core + oauth2 (token held) | ${oauthPerRequest.toFixed(1)} | ${(oauthPerRequest / plainPerRequest).toFixed(3)} |`,
    '',
    `End-to-end: median per-round ratio ${pairedRatio.toFixed(3)} (${overhead.toFixed(2)}%); the per-round ratios ranged ` +
      `from ${Math.min(...ratios).toFixed(3)} to ${Math.max(...ratios).toFixed(3)}, which is the noise of this machine. ` +
      `The attach step alone (the plugin's \`onRequest\`, ${calls.toLocaleString('en')} calls) costs ${attachNs.toFixed(0)} ns, ` +
      `${attachShare.toFixed(3)}% of a loopback request (target < 1%).`,
    '',
    `Single flight: 1000 concurrent first requests made **${tokenRequests}** token request(s) at oidc-provider ` +
      `(${bearerRequests}/1000 API requests carried the bearer token; all done in ${firstMs.toFixed(0)} ms).`,
  ].join('\n');
}
