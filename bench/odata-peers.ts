// OData reads as users compare clients: the same 200,000 products from the test server (in its own process),
// read by sluice's stream() and streamBatches() (v4, v2), hand loops on undici.Pool and fetch, the SAP Cloud SDK (client generated
// now from the server's $metadata; typed pages with top/skip, and its raw request API following next links)
// and @odata/client, each in its own child process. Every read is checked for the exact count, no duplicate
// keys, and the 2,000 Int64 values above 2^53 among the first 22,000 products.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ChartRatio } from './chart.js';
import { benchModule, median } from './child-server.js';
import type { ChildRequest, ChildResult } from './odata-peers-child.js';
import { ensurePeers, generateSapClient } from './peers/install.js';
import { READERS, type ReadJob, type ReaderKey } from './peers/readers.js';
import { startPeerServer } from './peers/server.js';
import { INT64_CHECKED } from './peers/sink.js';

export const name = 'odata-peers';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const RECORDS = 200_000;
const WARMUP = 20_000;
/** Readers that collect every record into one array (their own table, pages of 1,000). */
const COLLECT: ReaderKey[] = ['sluice-collect', 'sap-collect'];
/** Every reader but `sap-getall`, which is run once to show what it returns (see run()), and the collecting ones. */
const KEYS = (Object.keys(READERS) as ReaderKey[]).filter((k) => k !== 'sap-getall' && !COLLECT.includes(k));
/** Page size 5,000: the fast clients and the SAP client (its cost is per record, not per page). */
const KEYS_5000: ReaderKey[] = ['sluice-v4', 'sluice-v4-batches', 'pool-v4', 'sap-typed', 'sluice-v2', 'sluice-v2-batches', 'pool-v2'];
/** Readers that need bench/peers/ installed, and those that need the generated SAP client too. */
const NEEDS_PEERS: ReaderKey[] = ['sap-typed', 'sap-raw', 'sap-getall', 'sap-collect', 'odata-client'];
const NEEDS_SAP_CLIENT: ReaderKey[] = ['sap-typed', 'sap-getall', 'sap-collect'];
const root = fileURLToPath(new URL(import.meta.url.includes('/bench/.out/') ? '../..' : '..', import.meta.url));

function runChild(req: ChildRequest): Promise<ChildResult> {
  const child = benchModule('./odata-peers-child.ts');
  const file = fileURLToPath(child);
  const args = file.endsWith('.js') ? [file] : ['--import', 'tsx', file];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ODATA_PEERS_CHILD: JSON.stringify(req) }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => { out += c.toString(); });
    proc.once('error', reject);
    proc.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult) : reject(new Error(`${req.key} child exited ${code}`))));
  });
}

interface Measured {
  key: ReaderKey;
  rate: number[];
  cpu: number[];
  rssMB: number[];
  int64Wrong: number;
  int64Checked: number;
  /** Why a read did not count (wrong count, duplicates, a crash); undefined when all rounds passed. */
  failure?: string;
}

/**
 * Runs `keys` in `ROUNDS` interleaved rounds (order rotated), each read in a fresh child process, after one
 * round that is not counted (it fills the server's page cache, so no client pays for the server's first pass)
 * unless `cached` says earlier reads of the same pages filled it.
 */
async function measure(keys: ReaderKey[], job: ReadJob, unavailable: Map<ReaderKey, string>, cached = false): Promise<Measured[]> {
  const out: Measured[] = keys.map((key) => ({ key, rate: [], cpu: [], rssMB: [], int64Wrong: 0, int64Checked: 0, failure: unavailable.get(key) }));
  for (let round = cached ? 0 : -1; round < ROUNDS; round++) {
    for (let k = 0; k < keys.length; k++) {
      const m = out[(k + Math.max(round, 0)) % keys.length]!;
      if (m.failure) continue;
      try {
        const r = await runChild({ key: m.key, job, warmup: WARMUP });
        if (r.n !== job.records || r.duplicates > 0) {
          m.failure = `read ${r.n} records, ${r.duplicates} duplicates (expected ${job.records}, none)`;
          continue;
        }
        if (round < 0) continue;
        m.rate.push((r.n / r.ms) * 1000);
        m.cpu.push((r.cpuMs * 1000) / r.n);
        m.rssMB.push((r.peakRss - r.baseRss) / 1024);
        m.int64Wrong = Math.max(m.int64Wrong, r.int64Wrong);
        m.int64Checked = r.int64Checked;
      } catch (err) {
        m.failure = (err as Error).message;
      }
    }
  }
  return out;
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Per-round ratio to the sluice row of the same protocol, then the median (rounds share the machine's noise). */
function ratio(a: number[], b: number[]): number {
  return median(a.map((x, i) => x / b[i]!));
}

/** The table of `results`; each row's ratios are to the row `baseKey` names (sluice of the same protocol by default). */
function table(results: Measured[], pageSize: number, chart: ChartRatio[] | undefined, baseKey = (protocol: string): string => `sluice-${protocol}`): string[] {
  const rows: string[] = [];
  for (const m of results) {
    const { label, protocol } = READERS[m.key];
    const base = results.find((r) => r.key === baseKey(protocol));
    if (m.failure || !base || base.failure) {
      rows.push(`| ${protocol} | ${label} | failed: ${(m.failure ?? 'sluice row failed').replace(/\|/g, '/')} | | | | | |`);
      continue;
    }
    const isBase = m === base;
    const rateRatio = ratio(m.rate, base.rate);
    const cpuRatio = ratio(m.cpu, base.cpu);
    rows.push(
      `| ${protocol} | ${label} | ${fmt(median(m.rate))} | ${isBase ? '1.00' : rateRatio.toFixed(2)} | ${fmt(median(m.cpu), 2)} µs | ` +
        `${isBase ? '1.00' : cpuRatio.toFixed(2)} | ${fmt(median(m.rssMB), 1)} MB | ${m.int64Wrong} of ${m.int64Checked} |`,
    );
    if (chart && !isBase) {
      chart.push({ group: `OData ${protocol}, pages of ${fmt(pageSize)}`, peer: label.replace(/`/g, ''), ratio: cpuRatio, throughput: 1 / rateRatio,
        note: m.int64Wrong > 0 ? `${m.int64Wrong} of ${m.int64Checked} Int64 wrong` : undefined });
    }
  }
  return [
    '| protocol | client | records/s (wall) | records/s vs sluice | client CPU per record | CPU vs sluice | peak RSS over baseline | Int64 values wrong |',
    '|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
}

/** Marks `keys` unavailable for `why`, so their rows say so and the rest of the suite still runs. */
function markUnavailable(unavailable: Map<ReaderKey, string>, keys: ReaderKey[], why: string): void {
  for (const k of keys) if (!unavailable.has(k)) unavailable.set(k, why);
}

export async function run(): Promise<{ markdown: string; ratios: ChartRatio[] }> {
  const unavailable = new Map<ReaderKey, string>();
  try {
    ensurePeers();
  } catch (err) {
    markUnavailable(unavailable, NEEDS_PEERS, `peer clients not installed (${(err as Error).message})`);
  }
  const lines = ['## OData clients compared (`odata-peers`)', ''];
  const ratios: ChartRatio[] = [];
  const started = performance.now();
  for (const pageSize of [1000, 5000]) {
    const server = await startPeerServer(RECORDS, pageSize);
    try {
      let sapClient = '';
      if (!unavailable.has('sap-typed')) {
        try {
          sapClient = await generateSapClient(server.v4);
        } catch (err) {
          markUnavailable(unavailable, NEEDS_SAP_CLIENT, `SAP client generation failed: ${(err as Error).message.split('\n')[0]!}`);
        }
      }
      const job: ReadJob = { v4: server.v4, v2: server.v2, records: RECORDS, pageSize, sapClient };
      const results = await measure(pageSize === 1000 ? KEYS : KEYS_5000, job, unavailable);
      lines.push(
        `### ${fmt(RECORDS)} records, pages of ${fmt(pageSize)} (${ROUNDS} interleaved rounds, median; one child process per read)`, '',
        ...table(results, pageSize, ratios), '',
      );
      if (pageSize === 1000 && !unavailable.has('sap-getall')) {
        const once = await runChild({ key: 'sap-getall', job, warmup: 0 });
        lines.push(
          `The SAP client's one-call read of the whole set, \`productsApi.requestBuilder().getAll().execute(destination)\`, returned`,
          `${fmt(once.n)} of ${fmt(RECORDS)} records (${once.duplicates} duplicates) and no error` +
            (once.n < RECORDS ? ': it does not follow `@odata.nextLink`.' : '.'), '',
        );
      }
      if (pageSize === 1000) {
        // The same pages as sluice-v4 and sap-typed above read, so the server's cache already holds them.
        const collected = await measure(COLLECT, job, unavailable, true);
        lines.push(
          `### Collecting all ${fmt(RECORDS)} records into one array, pages of ${fmt(pageSize)} (${ROUNDS} interleaved rounds, median)`, '',
          ...table(collected, pageSize, undefined, () => 'sluice-collect'), '',
          'What a caller holds who wants every record at once: the array of all of them. sluice keeps its plain records;',
          'the SAP client keeps its typed entities (BigNumber, parsed dates, its own property names), top/skip page by page.', '',
        );
      }
    } finally {
      server.child.kill();
    }
  }
  const minutes = (performance.now() - started) / 60_000;
  lines.push(
    'Ratios are per round against sluice of the same protocol, then the median: "records/s vs sluice" below 1.00 is slower',
    'than sluice, "CPU vs sluice" above 1.00 costs more client CPU per record. Each read runs in a fresh process after a',
    `${fmt(WARMUP)}-record warm-up, after an uncounted round that fills the server's page cache; CPU and RSS are the client process's own (the server runs in another).`,
    '"Peak RSS over baseline" is the child\'s peak resident set at the end (VmHWM in /proc/self/status, warm-up included)',
    'minus its resident set once the client\'s modules were loaded, before any read (VmRSS). Not `resourceUsage().maxRSS`:',
    'Linux keeps that across fork and exec, so a child reports at least the bench process\'s own peak. Every read was checked for the exact count',
    'and no duplicate keys (a failed check shows as "failed").', '',
    `Int64: the first ${fmt(INT64_CHECKED)} products above 2^53 (every 11th, Stock = 2^53 + 1 + ID) compared digit for digit with`,
    'what the server holds. sluice asks v4 services for `IEEE754Compatible=true` and gets Int64 as strings; the Pool loop',
    'sends the same header. The fetch loop sends `accept: application/json` as most code does, and gets bare JSON',
    'numbers that JSON.parse rounds to the nearest double without an error; so do the SAP SDK (its BigNumber is built',
    'from the rounded number) and `@odata/client`. v2 (verbose JSON) sends Int64 as strings, so every v2 client is exact.', '',
    'Clients: SAP Cloud SDK `@sap-cloud-sdk/odata-v4` 4.8.0 with a client generated at bench time by',
    '`@sap-cloud-sdk/generator` 4.5.1 from the server\'s `$metadata` (its `--transpile` type-check fails against',
    'bignumber.js 11, which the 4.8 runtime requires, so the generated TypeScript is transpiled without a type-check:',
    'bench/peers/install.ts); its `getAll()` alone stops after the server\'s first page, so the typed rows read page by',
    'page with `top`/`skip`. `@odata/client` 2.21.10 (EntitySet `query` with `top`/`skip`; it uses the global `fetch`).',
    'They live in bench/peers/ (own package.json and lock, installed on first use with `npm ci --prefix bench/peers`).', '',
    `The suite took ${fmt(minutes, 1)} min.`,
  );
  return { markdown: lines.join('\n'), ratios };
}
