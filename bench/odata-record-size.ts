// OData stream reader on one large record: CPU to scan (and then JSON.parse) a page whose single record
// is 8, 16, 32 or 64 MiB, fed in 64 KiB chunks as a chunked response arrives. The reader joins a record's
// chunks once when it completes, so CPU should grow linearly with the record size (ms per MiB flat);
// before, it copied the unfinished record on every chunk (quadratic).
import { ItemScanner } from '../packages/odata/src/index.js';
import { utf8Text } from '../packages/odata/src/read/utf8.js';
import { median } from './child-server.js';

export const name = 'odata-record-size';

const CHUNK = 64 * 1024;
const SIZES_MIB = [8, 16, 32, 64];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

function page(mib: number): Buffer {
  return Buffer.from(`{"value":[{"ID":1,"Blob":"${'x'.repeat(mib * 1024 * 1024)}"}],"@odata.nextLink":"P?$skiptoken=1"}`);
}

/** CPU ms (user + system) to scan `body` chunk by chunk, and to scan and parse it. */
function measure(body: Buffer): { scan: number; parse: number } {
  const start = process.cpuUsage();
  const scanner = new ItemScanner([['value']]);
  let record: Buffer | undefined;
  let from = 0;
  let to = 0;
  for (let i = 0; i < body.length; i += CHUNK) {
    const batch = scanner.push(body.subarray(i, i + CHUNK));
    if (batch.starts.length > 0) { record = batch.buf; from = batch.starts[0]!; to = batch.ends[0]!; }
  }
  scanner.end();
  const scanned = process.cpuUsage(start);
  // Decoded as the stream reader decodes a run (utf8Text), then parsed.
  JSON.parse(utf8Text(record!, from, to));
  const total = process.cpuUsage(start);
  return { scan: (scanned.user + scanned.system) / 1000, parse: (total.user + total.system) / 1000 };
}

export async function run(): Promise<string> {
  const rows: string[] = [];
  let base: number | undefined;
  for (const mib of SIZES_MIB) {
    const body = page(mib);
    measure(body); // warm-up
    const runs = Array.from({ length: ROUNDS }, () => measure(body));
    const scan = median(runs.map((r) => r.scan));
    const parse = median(runs.map((r) => r.parse));
    base ??= scan / mib;
    rows.push(`| ${mib} MiB | ${scan.toFixed(1)} | ${(scan / mib).toFixed(2)} | ${((scan / mib) / base).toFixed(2)} | ${parse.toFixed(1)} |`);
    await Promise.resolve();
  }
  return [
    '## OData stream reader: one large record',
    '',
    `One record of 8 to 64 MiB in 64 KiB chunks; CPU ms (user + system), median of ${ROUNDS}. Linear growth means a flat`,
    '"ms per MiB" (ratio to the 8 MiB row near 1). Target: the 64 MiB record costs about 8x the 8 MiB one (not 60x).',
    '',
    '| record | scan CPU ms | ms per MiB | vs 8 MiB | scan + JSON.parse CPU ms |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
