// The `rss` part of the sink bench: does the peak RSS of `sluice export` / `sluice sync` grow with the records?
// Each contender runs at several sizes (BENCH_SINK_RSS_RECORDS, default 100,000, 1,000,000 and 2,000,000; a server
// process per size) and at 1,000,000 with the old generation grown by 100% and by 50% past what survived a full
// collection (SLUICE_HEAP_GROWING_PERCENT) and with the old space capped, in its own process that samples V8's heap spaces every 20 ms (bench/sink-runner.ts `sluice-heap`): what
// grows shows in which space grows. Its collections are counted too. A single contender
// and size: BENCH_SINK_RSS_CONTENDERS=sqlite BENCH_SINK_RSS_RECORDS=1000000 BENCH_SINK_RSS_VARIANTS=0.
import { join } from 'node:path';
import { runMeasured, type MeasuredRun } from './child-server.js';
import { startServerProcess } from './odata-stream.js';

/** The sizes the part runs at. */
const SIZES = (process.env.BENCH_SINK_RSS_RECORDS ?? '100000,1000000,2000000').split(',').map(Number);
/** The contenders it runs (BENCH_SINK_RSS_CONTENDERS, comma-separated: ndjson, parquet, sqlite, postgres; default all). */
const ONLY = process.env.BENCH_SINK_RSS_CONTENDERS?.split(',');
/** BENCH_SINK_RSS_VARIANTS=0 leaves out the runs with node flags (growth by 100% and 50%, the capped old space). */
const VARIANTS = process.env.BENCH_SINK_RSS_VARIANTS !== '0';
/** The old-space cap of the capped rows (MiB), and the size they run at (BENCH_SINK_RSS_CAP, BENCH_SINK_RSS_CAPPED_RECORDS). */
const CAP = Number(process.env.BENCH_SINK_RSS_CAP ?? 48);
const CAPPED_AT = Number(process.env.BENCH_SINK_RSS_CAPPED_RECORDS ?? 1_000_000);

interface HeapRun extends MeasuredRun { heapMiB: Record<string, number>; gc: { scavenges: number; fullGCs: number } }

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `sluice <args>` in its own process with V8's heap sampled; `flags` go to node. */
async function measured(cli: string, args: string[], flags: string[] = []): Promise<HeapRun> {
  return (await runMeasured('./sink-runner.ts', ['sluice-heap', cli, ...args, '--quiet'], flags)) as HeapRun;
}

/** Appends the RSS table to `lines`. */
export async function rssPart(lines: string[], cli: string, dir: string, postgresURL: string): Promise<void> {
  const contenders: [string, string, (v4: string) => string[]][] = ([
    ['ndjson', 'export, NDJSON', (v4) => ['export', v4, 'Products', '--out', join(dir, 'rss.ndjson')]],
    ['parquet', 'export, Parquet (snappy)', (v4) => ['export', v4, 'Products', '--format', 'parquet', '--out', join(dir, 'rss.parquet')]],
    ['sqlite', 'sync into SQLite', (v4) => ['sync', v4, 'Products', '--into', `sqlite:${join(dir, 'rss.db')}`, '--mode', 'snapshot', '--rebuild']],
    ['postgres', 'sync into PostgreSQL', (v4) => ['sync', v4, 'Products', '--into', postgresURL, '--table', 'rss_products', '--mode', 'snapshot', '--rebuild']],
  ] as [string, string, (v4: string) => string[]][]).filter(([key]) => ONLY === undefined || ONLY.includes(key));
  const rows: string[] = [];
  // At CAPPED_AT also: the old generation grown by 100% and by 50% (what SLUICE_HEAP_GROWING_PERCENT sets, through
  // packages/cli/src/heap.ts; the CLI keeps V8's own sizing by default), and the old space capped.
  const variants = [['--heap-growing-percent=100'], ['--heap-growing-percent=50'], [`--max-old-space-size=${CAP}`]];
  const runs = [...SIZES.map((n) => ({ n, flags: [] as string[] })), ...(VARIANTS ? variants.map((flags) => ({ n: CAPPED_AT, flags })) : [])];
  const uncappedCpu = new Map<string, number>();
  for (const { n, flags } of runs) {
    const server = await startServerProcess(n, 1000);
    try {
      for (const [, label, args] of contenders) {
        const o = await measured(cli, args(server.v4), flags);
        const h = o.heapMiB;
        const cpu = (o.cpuMs * 1000) / n;
        if (flags.length === 0 && n === CAPPED_AT) uncappedCpu.set(label, cpu);
        const vsShipped = flags.length && uncappedCpu.has(label) ? ` (${fmt(cpu / uncappedCpu.get(label)!, 2)}x)` : '';
        rows.push(`| ${label} | ${fmt(n)} | ${flags.join(' ')} | ${fmt(o.maxRssKiB / 1024)} MiB | ${fmt(h['old_space'] ?? 0, 1)} | ${fmt(h['new_space'] ?? 0, 1)} | ` +
          `${fmt(h['large_object_space'] ?? 0, 1)} | ${fmt(h['array_buffers'] ?? 0, 1)} | ${fmt(h['rss_anon'] ?? 0)} | ${fmt(h['heap_total'] ?? 0)} | ${o.gc.scavenges} | ${o.gc.fullGCs} | ${fmt(cpu, 2)} µs${vsShipped} |`);
      }
    } finally {
      server.child.kill();
    }
  }
  lines.push(
    '', `Peak RSS against the number of records (\`BENCH_SINK_PARTS=rss\`): each contender in its own process, started afresh for each size ` +
      `(a server process per size); the peak of each V8 heap space (the memory V8 holds for it) and of ArrayBuffer memory sampled every 20 ms. ` +
      'Rows without node flags run the CLI as shipped (V8\'s own old-generation sizing); the last rows, at ' +
      `${fmt(CAPPED_AT)} records, with the old generation grown by 100% (\`SLUICE_HEAP_GROWING_PERCENT=100\`) and by half, and the old space capped at ${CAP} MiB, ` +
      'their CPU per record next to the shipped run\'s. Scavenges and full (mark-compact) collections from v8\'s GCProfiler, start-up included. ' +
      'RssAnon (/proc/self/status, peak of the same samples) is the anonymous memory: V8\'s heap (its peak total in the next column) ' +
      'plus the malloc arenas (SQLite\'s page cache, V8\'s compiler zones, ...).',
    '', '| run | records | node flags | peak RSS | old space, MiB | new space, MiB | large objects, MiB | ArrayBuffers, MiB | RssAnon, MiB | V8 heap, MiB | scavenges | full GCs | CPU per record |',
    '|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|', ...rows,
  );
}
