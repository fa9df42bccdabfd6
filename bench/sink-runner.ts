// A contender of the sink bench, run in its own process: `sluice <bundle> <args...>` runs the sluice
// executable; `hand-sqlite <first-page-url> <file>` and `hand-pg <first-page-url> <postgres-url>` are the
// loops a developer writes by hand (undici + JSON.parse + prepared inserts / COPY in one transaction); `sluice-heap`
// runs sluice as `sluice` does and samples V8's heap every 20 ms. The process writes its CPU time and peak RSS (VmHWM,
// see proc-rss.ts: not `maxRSS`, which a child inherits from its parent) as JSON to file descriptor 3 when it exits,
// with `sluice-heap` the peaks of V8's heap spaces and of ArrayBuffer memory too (MiB), and how many scavenges and
// full (mark-compact) collections it made (v8's GCProfiler), and the peak of its anonymous RSS (RssAnon: V8's heap
// plus malloc arenas; less V8's heap_total, what lives outside V8's heap).
import { writeSync } from 'node:fs';
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8';
import { pathToFileURL } from 'node:url';
import { finished } from 'node:stream/promises';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { request } from 'undici';
import { openSqlite } from '../packages/sink/src/index.js';
import { anonRssKiB, peakRssKiB } from './proc-rss.js';

const [mode, target = '', ...rest] = process.argv.slice(2);

/** Peaks of V8's heap spaces (space size: what V8 holds from the system) and of ArrayBuffer memory, in bytes. */
const heap: Record<string, number> = {};
function sampleHeap(): void {
  const peak = (name: string, bytes: number): void => { heap[name] = Math.max(heap[name] ?? 0, bytes); };
  for (const s of getHeapSpaceStatistics()) peak(s.space_name, s.space_size);
  const m = process.memoryUsage();
  peak('heap_total', m.heapTotal);
  peak('array_buffers', m.arrayBuffers);
  const anon = anonRssKiB();
  if (anon !== undefined) peak('rss_anon', anon * 1024);
}
if (mode === 'sluice-heap') setInterval(sampleHeap, 20).unref();
const gcProfiler = mode === 'sluice-heap' ? new GCProfiler() : undefined;
gcProfiler?.start();

/** Scavenges and full (mark-compact) collections among the GCProfiler's statistics. */
const collections = (statistics: readonly { gcType: string }[]): Record<string, number> =>
  ({ scavenges: statistics.filter((g) => g.gcType === 'Scavenge').length, fullGCs: statistics.filter((g) => g.gcType === 'MarkSweepCompact').length });

process.on('exit', () => {
  const usage = process.resourceUsage();
  const report: Record<string, unknown> = { cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKiB: peakRssKiB() };
  if (mode === 'sluice-heap') {
    sampleHeap();
    report['heapMiB'] = Object.fromEntries(Object.entries(heap).map(([k, v]) => [k, Math.round((v / 2 ** 20) * 10) / 10]));
    report['gc'] = collections(gcProfiler!.stop()?.statistics ?? []);
  }
  writeSync(3, JSON.stringify(report));
});

interface Product { ID: number; Name: string; Description: string | null; Price: string; Stock: string; Rating: number; Active: boolean; ReleaseDate: string; Guid: string; CategoryID: number }

/** Every page of the set, parsed, in order. */
async function* pages(first: string): AsyncGenerator<Product[]> {
  let url: string | undefined = first;
  while (url) {
    const { body } = await request(url, { headers: { accept: 'application/json;odata.metadata=minimal;IEEE754Compatible=true' } });
    const doc = JSON.parse(await body.text()) as { value: Product[]; '@odata.nextLink'?: string };
    yield doc.value;
    url = doc['@odata.nextLink'];
  }
}

const COLUMNS = '"ID", "Name", "Description", "Price", "Stock", "Rating", "Active", "ReleaseDate", "Guid", "CategoryID"';

/** SQLite: one prepared INSERT per record, all in one transaction. */
async function handSqlite(first: string, file: string): Promise<void> {
  const db = openSqlite(file);
  db.exec('DROP TABLE IF EXISTS Products');
  db.exec('CREATE TABLE Products (ID INTEGER PRIMARY KEY, Name TEXT NOT NULL, Description TEXT, Price TEXT NOT NULL, Stock INTEGER NOT NULL, Rating REAL NOT NULL, Active INTEGER NOT NULL, ReleaseDate TEXT NOT NULL, Guid TEXT NOT NULL, CategoryID INTEGER NOT NULL) STRICT');
  const insert = db.prepare(`INSERT INTO Products (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  db.exec('BEGIN');
  for await (const page of pages(first)) {
    for (const p of page) insert.run(p.ID, p.Name, p.Description, p.Price, BigInt(p.Stock), p.Rating, p.Active ? 1 : 0, p.ReleaseDate, p.Guid, p.CategoryID);
  }
  db.exec('COMMIT');
  db.close();
}

/** COPY text: NULL as \N; backslash, tab, newline and carriage return escaped. */
const copyText = (v: string | null): string => (v === null ? '\\N' : v.replace(/[\\\t\n\r]/g, (c) => ({ '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' })[c]!));

/** PostgreSQL: one COPY (text format, pg-copy-streams) per page, all in one transaction. */
async function handPg(first: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('DROP TABLE IF EXISTS hand_products');
  await client.query('CREATE TABLE hand_products ("ID" integer PRIMARY KEY, "Name" text NOT NULL, "Description" text, "Price" numeric(12,2) NOT NULL, "Stock" bigint NOT NULL, "Rating" double precision NOT NULL, "Active" boolean NOT NULL, "ReleaseDate" timestamptz NOT NULL, "Guid" uuid NOT NULL, "CategoryID" integer NOT NULL)');
  await client.query('BEGIN');
  for await (const page of pages(first)) {
    let text = '';
    for (const p of page) {
      text += `${p.ID}\t${copyText(p.Name)}\t${copyText(p.Description)}\t${p.Price}\t${p.Stock}\t${p.Rating}\t${p.Active ? 't' : 'f'}\t${p.ReleaseDate}\t${p.Guid}\t${p.CategoryID}\n`;
    }
    const stream = client.query(copyFrom(`COPY hand_products (${COLUMNS}) FROM STDIN`));
    stream.end(Buffer.from(text, 'utf8'));
    await finished(stream);
  }
  await client.query('COMMIT');
  await client.end();
}

if (mode === 'hand-sqlite') await handSqlite(target, rest[0]!);
else if (mode === 'hand-pg') await handPg(target, rest[0]!);
else if (mode === 'sluice' || mode === 'sluice-heap') {
  process.argv = [process.argv[0]!, target, ...rest];
  await import(pathToFileURL(target).href);
} else throw new Error(`sink-runner: unknown mode ${String(mode)}`);
