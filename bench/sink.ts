// @sluice/sink: `sluice export` of the Products set to Parquet vs NDJSON vs CSV (records/s, CPU per
// record, file size, peak RSS), and `sluice sync --mode snapshot` into SQLite and PostgreSQL vs a hand loop
// (undici + JSON.parse + inserts in one transaction). Each contender is its own process; the OData test
// server a third, PostgreSQL (testkit) a fourth. BENCH_SINK_RECORDS sets the size (default 1,000,000). The `rss` part
// (bench/sink-rss.ts, not run by default) measures peak RSS and V8's heap spaces against the number of records.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unsupportedCodec } from '../packages/sink/src/index.js';
import { sluiceCLI, startPostgresServer } from '../packages/testkit/src/index.js';
import { runMeasured, type MeasuredRun } from './child-server.js';
import { rssPart } from './sink-rss.js';
import { startServerProcess } from './odata-stream.js';

export const name = 'sink';

const RECORDS = Number(process.env.BENCH_SINK_RECORDS ?? 1_000_000);
/** `export`, `sync` (default: both), `rss`, comma-separated: BENCH_SINK_PARTS=sync runs the sync loaders only. */
const PARTS = new Set((process.env.BENCH_SINK_PARTS ?? 'export,sync').split(','));

type Outcome = MeasuredRun;

/** Runs one contender (bench/sink-runner) in its own process. */
const contender = (args: string[]): Promise<Outcome> => runMeasured('./sink-runner.ts', args);

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const row = (label: string, o: Outcome, extra: string[] = []): string =>
  `| ${label} | ${fmt(RECORDS / (o.ms / 1000))} | ${fmt((o.cpuMs * 1000) / RECORDS, 2)} µs | ${[...extra, `${fmt(o.maxRssKiB / 1024)} MiB`].join(' | ')} |`;

export async function run(): Promise<string> {
  const [server, cli, dir, postgres] = await Promise.all([
    startServerProcess(PARTS.has('export') || PARTS.has('sync') ? RECORDS : 1, 1000), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-bench-sink-')), startPostgresServer(),
  ]);
  const sluice = (...args: string[]): string[] => ['sluice', cli.path, ...args, '--quiet'];
  const lines = ['## Parquet export and database sync (`sink`)', ''];
  try {
    if (PARTS.has('export') || PARTS.has('sync')) await contender(sluice('export', server.v4, 'Products', '--out', join(dir, 'warm.ndjson'))); // warm-up: the server's page cache
    if (PARTS.has('export')) await exports(lines, server.v4, dir, sluice);
    if (PARTS.has('sync')) await syncs(lines, server.v4, dir, sluice, postgres.url);
    if (PARTS.has('rss')) await rssPart(lines, cli.path, dir, postgres.url);
  } finally {
    server.child.kill();
    await postgres.close();
    await rm(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}

type Sluice = (...args: string[]) => string[];

/** Records of the smaller export: its peak RSS next to the full run's shows whether memory stays flat. */
const SMALL = Math.min(100_000, RECORDS);

async function exports(lines: string[], v4: string, dir: string, sluice: Sluice): Promise<void> {
  const codecs = ['snappy', 'gzip', ...(unsupportedCodec('ZSTD') === undefined ? ['zstd'] : [])];
  const runs: [string, string[]][] = [
    ['ndjson', ['--format', 'ndjson']], ['csv', ['--format', 'csv']],
    ...codecs.map((c): [string, string[]] => [`parquet, ${c}`, ['--format', 'parquet', '--compression', c]]),
  ];
  const rows: string[] = [];
  let ndjsonCpu = 0;
  for (const [label, args] of runs) {
    const out = join(dir, `products.${args[1]}`);
    const small = await contender(sluice('export', v4, 'Products', ...args, '--top', String(SMALL), '--out', out));
    const o = await contender(sluice('export', v4, 'Products', ...args, '--out', out));
    const cpu = (o.cpuMs * 1000) / RECORDS;
    if (label === 'ndjson') ndjsonCpu = cpu;
    rows.push(`| ${label} | ${fmt(RECORDS / (o.ms / 1000))} | ${fmt(cpu, 2)} µs | ${fmt(cpu / ndjsonCpu, 2)}x | ` +
      `${fmt((await stat(out)).size / 2 ** 20, 1)} MiB | ${fmt(small.maxRssKiB / 1024)} MiB | ${fmt(o.maxRssKiB / 1024)} MiB |`);
  }
  lines.push(
    `\`sluice export\` of ${fmt(RECORDS)} Products (1000 per page; Decimal(12,2), Int64, DateTimeOffset, Guid, ...), one process per run ` +
      '(start-up and `$metadata` included), one run each on a shared machine. Parquet: row groups of 20,000, typed columns, ' +
      `PLAIN pages; zstd only where Node has it (>= 22.15; this run: Node ${process.versions.node}). Peak RSS for the first ${fmt(SMALL)} ` +
      `records (\`--top\`) and for all ${fmt(RECORDS)}.`,
    '', `| format | records/s (wall) | CPU per record | CPU vs NDJSON | file size | peak RSS, ${fmt(SMALL)} | peak RSS, ${fmt(RECORDS)} |`,
    '|---|---:|---:|---:|---:|---:|---:|', ...rows, '',
  );
}

async function syncs(lines: string[], v4: string, dir: string, sluice: Sluice, postgresURL: string): Promise<void> {
  const sqlite = join(dir, 'sync.db');
  const sync = [
    row('`sluice sync --mode snapshot` into SQLite', await contender(sluice('sync', v4, 'Products', '--into', `sqlite:${sqlite}`, '--mode', 'snapshot'))),
    row('hand loop into SQLite (prepared INSERT per record, one transaction)', await contender(['hand-sqlite', `${v4}Products`, join(dir, 'hand.db')])),
    row('`sluice sync --mode snapshot` into PostgreSQL', await contender(sluice('sync', v4, 'Products', '--into', postgresURL, '--mode', 'snapshot'))),
    row('hand loop into PostgreSQL (COPY per page, one transaction)', await contender(['hand-pg', `${v4}Products`, postgresURL])),
  ];
  lines.push(
    `Loading the same ${fmt(RECORDS)} records into a table (the service tracks no changes of Products: a snapshot load into a staging table, ` +
      'swapped in at the end, each page committed with the run state; into PostgreSQL by one COPY per page). The hand loops skip the per-page commits, the state and the ' +
      'value checks; PostgreSQL runs locally with fsync off (testkit).',
    '', '| loader | records/s (wall) | CPU per record (loader process) | peak RSS |', '|---|---:|---:|---:|', ...sync,
  );
}
