// The sluice CLI: `sluice export` of 1,000,000 records to NDJSON against a hand-written export loop
// (undici request + JSON.parse + JSON.stringify per record + follow nextLink), each in its own process:
// records/s (wall), CPU per record of the exporter, and its peak RSS for 100k vs 1M records (flat).
// The OData test server runs in a third process.
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sluiceCLI } from '../packages/testkit/src/index.js';
import { median, runMeasured } from './child-server.js';
import { startServerProcess } from './odata-stream.js';

export const name = 'cli-export';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECORDS = 1_000_000;

interface Outcome { ms: number; cpuMs: number; maxRssKiB: number; bytes: number; threads?: Record<string, number> | undefined }

/** CPU ms of the main thread and of all other threads (GC helpers, libuv's pool) of a run, where the runner could read them. */
function threadSplit(o: Outcome): { main: number; other: number } | undefined {
  if (o.threads?.['main'] === undefined) return undefined;
  const main = o.threads['main'];
  return { main, other: Object.values(o.threads).reduce((a, b) => a + b, 0) - main };
}

/** Runs one contender in a child process (bench/cli-runner) and collects its wall time, CPU, peak RSS and output size. */
async function contender(args: string[], out: string, nodeFlags: string[] = []): Promise<Outcome> {
  return { ...(await runMeasured('./cli-runner.ts', args, nodeFlags)), bytes: (await stat(out)).size };
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export async function run(): Promise<string> {
  const lines = ['## sluice CLI export (`cli-export`)', ''];
  const [server, cli, dir] = await Promise.all([startServerProcess(RECORDS, 1000), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-bench-'))]);
  const out = join(dir, 'out.ndjson');
  const sluice = (top: number): string[] => ['sluice', cli.path, 'export', server.v4, 'Products', '--version', '4', '--quiet', '--out', out, ...(top < RECORDS ? ['--top', String(top)] : [])];
  const hand = ['hand', `${server.v4}Products`, out];
  try {
    await contender(hand, out); // warm-up: the server's page cache and JIT
    const rate = { hand: [] as number[], sluice: [] as number[] };
    const cpu = { hand: [] as number[], sluice: [] as number[] };
    const mainCPU = { hand: [] as number[], sluice: [] as number[] };
    const otherCPU = { hand: [] as number[], sluice: [] as number[] };
    const sizes = { hand: 0, sluice: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const who of round % 2 === 0 ? (['hand', 'sluice'] as const) : (['sluice', 'hand'] as const)) {
        const o = await contender(who === 'hand' ? hand : sluice(RECORDS), out);
        rate[who].push(RECORDS / (o.ms / 1000));
        cpu[who].push((o.cpuMs * 1000) / RECORDS);
        const split = threadSplit(o);
        if (split) {
          mainCPU[who].push((split.main * 1000) / RECORDS);
          otherCPU[who].push((split.other * 1000) / RECORDS);
        }
        sizes[who] = o.bytes;
      }
    }
    const r = { hand: median(rate.hand), sluice: median(rate.sluice) };
    const c = { hand: median(cpu.hand), sluice: median(cpu.sluice) };
    lines.push(
      `${fmt(RECORDS)} records, 1000 per page, NDJSON to a file (${fmt(sizes.sluice / 2 ** 20)} MiB; the hand loop's ${fmt(sizes.hand / 2 ** 20)} MiB), ` +
        `${ROUNDS} interleaved rounds, medians. Each exporter is its own process (start-up included in the wall time), the server a third; ` +
        'sluice runs with `--version 4`, so it reads no `$metadata` either.',
      '',
      '| exporter | records/s (wall) | ratio | CPU per record | CPU ratio (hand / sluice) |', '|---|---:|---:|---:|---:|',
      `| hand loop (undici.request + JSON.parse + stringify + nextLink) | ${fmt(r.hand)} | 1.00 | ${fmt(c.hand, 2)} µs | 1.00 |`,
      `| \`sluice export\` | ${fmt(r.sluice)} | ${fmt(r.sluice / r.hand, 2)} | ${fmt(c.sluice, 2)} µs | ${fmt(c.hand / c.sluice, 2)} |`,
      '',
    );
    if (mainCPU.hand.length === ROUNDS && mainCPU.sluice.length === ROUNDS) {
      lines.push(
        'The CPU per record by thread (Linux `/proc/<pid>/task/*/schedstat` read as each exporter exits; medians): the main ' +
          'thread, and all others together (V8\'s workers: parallel scavenges, concurrent marking and sweeping, optimising ' +
          'compiles; libuv\'s pool: the file writes).', '',
        '| exporter | main thread | other threads |', '|---|---:|---:|',
        `| hand loop | ${fmt(median(mainCPU.hand), 2)} µs | ${fmt(median(otherCPU.hand), 2)} µs |`,
        `| \`sluice export\` | ${fmt(median(mainCPU.sluice), 2)} µs | ${fmt(median(otherCPU.sluice), 2)} µs |`,
        '',
      );
    }
    const rss: string[] = [];
    for (const top of [100_000, RECORDS]) {
      const o = await contender(sluice(top), out);
      rss.push(`| ${fmt(top)} | | ${fmt(o.maxRssKiB / 1024)} MiB |`);
    }
    // With the old space capped the export still completes: what grows above is garbage V8 collects lazily.
    const capped = await contender(sluice(RECORDS), out, ['--max-old-space-size=48']);
    rss.push(`| ${fmt(RECORDS)} | \`--max-old-space-size=48\` | ${fmt(capped.maxRssKiB / 1024)} MiB |`);
    lines.push('Peak RSS of the `sluice export` process (a heap capped at 48 MiB shows the live set stays small):', '',
      '| records | node flags | peak RSS |', '|---:|---|---:|', ...rss);
  } finally {
    server.child.kill();
    await rm(dir, { recursive: true, force: true });
  }
  return lines.join('\n');
}
