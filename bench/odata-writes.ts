// OData writing: (1) $metadata parsing of a multi-MB SAP-gateway-style EDMX fed in 64 KiB chunks
// (MB/s and heap kept), (2) single creates per second against the test server, with the CSRF plugin
// off, in 'auto' mode (the default: nothing to do until a 403 Required), and attaching a token and
// session cookie on every write (csrf: true against a gateway that checks them).
import { createODataClient, type ODataClient } from '../packages/odata/src/index.js';
import { edmxSkip, readEdmx } from '../packages/odata/src/metadata/edmx.js';
import { XmlTreeBuilder } from '../packages/odata/src/metadata/xml.js';
import { startODataServer } from '../packages/testkit/src/index.js';
import { sapV2Edmx } from '../packages/odata/test/fixtures/large-edmx.js';
import { median } from './child-server.js';

export const name = 'odata-writes';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CREATES = Number(process.env.BENCH_CREATES ?? 2000);
const CONCURRENCY = 8;

function parseOnce(doc: string): { ms: number; entitySets: number } {
  const start = process.cpuUsage();
  const builder = new XmlTreeBuilder('bench', edmxSkip);
  for (let i = 0; i < doc.length; i += 64 * 1024) builder.write(doc.slice(i, i + 64 * 1024));
  const md = readEdmx(builder.close(), 'bench');
  const used = process.cpuUsage(start);
  return { ms: (used.user + used.system) / 1000, entitySets: md.entitySets.size };
}

async function creates(od: ODataClient): Promise<number> {
  const orders = od.from('Orders');
  let next = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next++ < CREATES) await orders.create({ Customer: 'Bench', Amount: '1.00', Quantity: '1' }, { prefer: 'minimal' });
  }));
  return CREATES / ((performance.now() - started) / 1000);
}

export async function run(): Promise<string> {
  const doc = sapV2Edmx(800);
  const mb = Buffer.byteLength(doc) / 1e6;
  parseOnce(doc);
  const parses = Array.from({ length: ROUNDS }, () => parseOnce(doc));
  const parseMs = median(parses.map((p) => p.ms));

  const rows: string[] = [];
  const modes: Array<['off' | 'auto' | 'always', boolean | 'auto']> = [['off', false], ['auto', 'auto'], ['always', true]];
  for (const [label, csrf] of modes) {
    const srv = await startODataServer({ products: 1, writes: { csrf: label === 'always', requireIfMatch: false } });
    const od = createODataClient({ serviceURL: srv.v4, version: '4.0', csrf, http: { retry: false } });
    try {
      await creates(od); // warm-up (and the token fetch)
      const rates = [];
      for (let r = 0; r < ROUNDS; r++) rates.push(await creates(od));
      rows.push(`| csrf ${label} | ${median(rates).toFixed(0)} |`);
    } finally {
      await od.close();
      await srv.close();
    }
  }
  return [
    '## OData writing',
    '',
    `$metadata: a ${mb.toFixed(1)} MB SAP-style EDMX (800 entity types, annotations, comments, CDATA) parsed in 64 KiB chunks:`,
    `${parseMs.toFixed(0)} ms CPU, ${(mb / (parseMs / 1000)).toFixed(1)} MB/s (median of ${ROUNDS}).`,
    '',
    `Single creates (POST, \`Prefer: return=minimal\`), ${CONCURRENCY} concurrent, ${CREATES} per round, median of ${ROUNDS}:`,
    '',
    '| CSRF | creates/s |',
    '|---|---|',
    ...rows,
  ].join('\n');
}
