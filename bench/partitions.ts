// Partitioned exports when the service is the bottleneck: every collection page is answered after 100 ms.
// One `sluice export` stream against --partitions 16 with --parallel 4, 8 and 16 in one process, a partitioned
// `sluice sync --mode snapshot` into SQLite (the same reads, pages written into a table), and 4
// `sluice worker` processes (BullMQ on a real redis-server) with `--queue --wait`: records/s (wall time of the
// exporting process, start-up and planning included) and the most requests the server saw in one second
// against the shared --rate budget.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sluiceCLI, startODataServer, startRedisServer, type ODataTestServer } from '../packages/testkit/src/index.js';

export const name = 'partitions';

const RECORDS = Number(process.env.BENCH_PARTITION_RECORDS ?? 200_000);
/** `--select` of every export: small records keep the client's CPU out of the way (the point is the service's latency). */
const SELECT = process.env.BENCH_PARTITION_SELECT ?? 'ID,Name,Price';
const PAGE = 1000;
const LATENCY_MS = 100;
const RATE = 200;
const BURST = 20;

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The most requests the server received in one second (buckets from the first request on). */
function peakPerSecond(srv: ODataTestServer, mark: number): number {
  const times = srv.requests.slice(mark).map((r) => r.at);
  const buckets = new Map<number, number>();
  for (const t of times) buckets.set(Math.floor((t - times[0]!) / 1000), (buckets.get(Math.floor((t - times[0]!) / 1000)) ?? 0) + 1);
  return Math.max(0, ...buckets.values());
}

export async function run(): Promise<string> {
  const [srv, redis, cli, dir] = await Promise.all([
    startODataServer({ products: RECORDS, pageSize: PAGE, cacheBytes: 256 * 1024 * 1024, faults: { latencyMs: LATENCY_MS } }),
    startRedisServer(), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-bench-parts-')),
  ]);
  const rows: string[] = [];
  const workers: ChildProcess[] = [];
  let base = 0;
  const warm = async (args: string[]): Promise<void> => {
    const r = await cli.run(['export', srv.v4, 'Products', '--version', '4', '-q', '--select', SELECT, ...args]);
    if (r.code !== 0) throw new Error(`partitions bench: warm-up exited ${r.code}: ${r.stderr}`);
  };
  const measure = async (label: string, args: string[], requests: string, command = 'export'): Promise<void> => {
    const mark = srv.requests.length;
    const t0 = performance.now();
    const r = await cli.run([command, srv.v4, 'Products', '--version', '4', '-q', '--select', SELECT, ...args]);
    const seconds = (performance.now() - t0) / 1000;
    if (r.code !== 0) throw new Error(`partitions bench: ${label} exited ${r.code}: ${r.stderr}`);
    const rate = RECORDS / seconds;
    base ||= rate;
    rows.push(`| ${label} | ${fmt(seconds, 1)} s | ${fmt(rate)} | ${fmt(rate / base, 1)}x | ${srv.requests.length - mark} | ${peakPerSecond(srv, mark)} | ${requests} |`);
  };
  try {
    const budget = ['--rate', String(RATE), '--burst', String(BURST)];
    for (let i = 0; i < 4; i++) {
      const child = cli.spawn(['worker', redis.url, '--quiet']);
      child.stdout!.resume();
      child.stderr!.resume();
      workers.push(child);
    }
    // Warm-up: every page each contender asks for is serialized once into the server's page cache, so the
    // measured runs wait for the latency, not for the server's CPU (the machine is shared).
    await warm(['--out', join(dir, 'warm.ndjson')]);
    await warm(['--partitions', '16', '--parallel', '16', '--out', join(dir, 'warm')]);
    await measure('1 stream', ['--out', join(dir, 'one.ndjson')], 'none');
    for (const k of [4, 8, 16]) await measure(`--partitions 16 --parallel ${k}`, ['--partitions', '16', '--parallel', String(k), ...budget, '--out', join(dir, `p${k}`)], `${RATE}/s + ${BURST}`);
    await measure('`sluice sync --mode snapshot` --partitions 16 --parallel 8 into SQLite', ['--mode', 'snapshot', '--partitions', '16', '--parallel', '8', ...budget, '--into', `sqlite:${join(dir, 'sync.db')}`], `${RATE}/s + ${BURST}`, 'sync');
    await measure('4 `sluice worker` processes (--queue --wait)', ['--partitions', '16', ...budget, '--queue', redis.url, '--wait', '--out', join(dir, 'queue')], `${RATE}/s + ${BURST}, in Redis`);
  } finally {
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all([srv.close(), redis.close(), rm(dir, { recursive: true, force: true })]);
  }
  return [
    '## Partitioned exports (`partitions`)',
    '',
    `${fmt(RECORDS)} records, ${PAGE} per page, every collection page answered after ${LATENCY_MS} ms (the service is the bottleneck), ` +
      `\`--select ${SELECT}\`, NDJSON; one run after a warm-up that filled the server's page cache (so the server waits, it does not compute). ` +
      'Wall time of the exporting `sluice` process, start-up and the partition plan included ($count, then 15 boundary reads at once, ' +
      'which wait for the latency too); the sync row writes the same records into a SQLite table instead of files; the 4 workers (`--concurrency 1`) were started before the warm-up. The peak is the most requests the server received in ' +
      'one second of the run, against the budget given with `--rate`/`--burst`.',
    '',
    '| export | wall | records/s | vs 1 stream | requests | peak requests/s | budget |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...rows,
  ].join('\n');
}
