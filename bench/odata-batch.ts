// OData $batch: 10,000 creates as batches of 100 (one changeset per batch) against one request per create
// (sequential, one at a time, as a job without its own concurrency would). Reports creates/s and the
// HTTP round trips the client made (the test server runs batch parts over loopback itself; those are
// not counted), so the saving shows in round trips even where the server's own work dominates.
import { createODataClient, type ODataClient } from '../packages/odata/src/index.js';
import { startODataServer } from '../packages/testkit/src/index.js';

export const name = 'odata-batch';

const CREATES = Number(process.env.BENCH_BATCH_CREATES ?? 10_000);
const BATCH = 100;

async function single(od: ODataClient): Promise<void> {
  const orders = od.from('Orders');
  for (let i = 0; i < CREATES; i++) await orders.create({ Customer: `S${i}` }, { prefer: 'minimal' });
}

async function batched(od: ODataClient): Promise<void> {
  const b = od.batch();
  for (let i = 0; i < CREATES; i += BATCH) {
    b.changeset((cs) => {
      for (let j = i; j < Math.min(i + BATCH, CREATES); j++) cs.create(od.from('Orders'), { Customer: `B${j}` }, { prefer: 'minimal' });
    });
  }
  const results = await b.send({ maxOperations: BATCH });
  const failed = results.filter((r) => !r.ok).length;
  if (failed > 0) throw new Error(`${failed} batched creates failed`);
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  for (const [label, fn] of [['one request per create', single], [`batches of ${BATCH}`, batched]] as const) {
    const srv = await startODataServer({ products: 1, writes: { requireIfMatch: false } });
    const od = createODataClient({ serviceURL: srv.v4, version: '4.0', csrf: false, http: { retry: false } });
    try {
      const started = performance.now();
      await fn(od);
      const seconds = (performance.now() - started) / 1000;
      const trips = srv.requests.length;
      if (srv.writes!.store.orders.size !== CREATES) throw new Error(`expected ${CREATES} orders, found ${srv.writes!.store.orders.size}`);
      rows.push(`| ${label} | ${(CREATES / seconds).toFixed(0)} | ${trips} |`);
    } finally {
      await od.close();
      await srv.close();
    }
  }
  return [
    '## OData $batch',
    '',
    `${CREATES} creates (\`Prefer: return=minimal\`), sequential, one run each:`,
    '',
    '| mode | creates/s | client round trips |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}
