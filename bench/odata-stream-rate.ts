// The throughput part of the odata-stream bench: sluice's stream() and streamBatches() against hand-written
// JSON.parse + next-link loops on undici.request and undici.Pool (v4, and v2 with the same shaping), records/s and
// client CPU per record in interleaved rounds, over the socket and from pages kept in memory.
import { Pool, request } from 'undici';
import type { Transport, TransportRequest, TransportResponse } from '../packages/core/src/index.js';
import { createODataClient } from '../packages/odata/src/index.js';
import { median } from './child-server.js';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const RECORDS = 200_000;
/** What sluice sends for v4, and what the v4 hand loops send too (Int64 as strings for both). */
export const ACCEPT = 'application/json;odata.metadata=minimal;IEEE754Compatible=true';

/** Fetches one page's text: the hand loops differ only in this (undici.request or one undici.Pool). */
type GetText = (url: string) => Promise<string>;

const viaRequest: GetText = async (url) => (await request(url, { headers: { accept: ACCEPT } })).body.text();

/** On one `undici.Pool` (the cheapest undici API). */
export function viaPool(pool: Pool, accept: string): GetText {
  return async (url) => {
    const u = new URL(url);
    return (await pool.request({ method: 'GET', path: u.pathname + u.search, headers: { accept } })).body.text();
  };
}

/** The v4 hand loop: JSON.parse each page, follow nextLink. */
export async function handLoop(first: string, get: GetText): Promise<number> {
  let url: string | undefined = first;
  let n = 0;
  while (url) {
    const doc = JSON.parse(await get(url)) as { value: unknown[]; '@odata.nextLink'?: string };
    n += doc.value.length;
    url = doc['@odata.nextLink'];
  }
  return n;
}

/** The v2 hand loop with sluice's shaping: records at `d.results`, `__next`, `__metadata` dropped. */
export async function handLoopV2(first: string, get: GetText): Promise<number> {
  let url: string | undefined = first;
  let n = 0;
  while (url) {
    const doc = JSON.parse(await get(url)) as { d: { results: Record<string, unknown>[]; __next?: string } };
    for (const record of doc.d.results) {
      delete record['__metadata'];
      n++;
    }
    url = doc.d.__next;
  }
  return n;
}

/** sluice's streamBatches(): the same records in arrays, one per run of a body chunk. */
export async function sluiceBatches(od: ReturnType<typeof createODataClient>, top: number): Promise<number> {
  let n = 0;
  for await (const batch of od.from('Products').top(top).streamBatches()) {
    if (batch.error) throw batch.error;
    n += batch.value.length;
  }
  return n;
}

export async function sluiceStream(od: ReturnType<typeof createODataClient>, top: number): Promise<number> {
  let n = 0;
  for await (const item of od.from('Products').top(top).stream()) {
    if (item.error) throw item.error;
    n++;
  }
  return n;
}

async function timed(task: () => Promise<number>): Promise<{ ms: number; n: number; cpu: number }> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const n = await task();
  const c = process.cpuUsage(c0);
  return { ms: performance.now() - t0, n, cpu: (c.user + c.system) / 1000 };
}

export const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** Runs every contender once to warm up, then ROUNDS interleaved rounds (order rotated); records/s and CPU µs per record. */
async function interleaved(contenders: [string, () => Promise<number>][]): Promise<{ rate: number[][]; cpu: number[][] }> {
  for (const [, task] of contenders) await task(); // warm-up: JIT, connections, the server's page cache
  const rate = contenders.map(() => [] as number[]);
  const cpu = contenders.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < contenders.length; k++) {
      const c = (k + round) % contenders.length;
      const [who, task] = contenders[c]!;
      const t = await timed(task);
      if (t.n !== RECORDS) throw new Error(`${who} read ${t.n} records, expected ${RECORDS}`);
      rate[c]!.push((t.n / t.ms) * 1000);
      cpu[c]!.push((t.cpu * 1000) / t.n);
    }
  }
  return { rate, cpu };
}

/** One page as the server sent it: the headers the reader checks and the body in the chunks undici hands over. */
interface StoredPage { headers: Record<string, string>; chunks: Buffer[] }

/** Page URLs as keys: path and query, percent-decoded, so `$top` and `%24top` meet. */
const pageKey = (url: string): string => {
  const u = new URL(url);
  return decodeURIComponent(u.pathname + u.search);
};

/** Reads every page of `first` from the server once and keeps it, split in 64 KiB chunks. */
async function storePages(first: string, accept: string, nextOf: (doc: Record<string, unknown>) => unknown): Promise<Map<string, StoredPage>> {
  const pages = new Map<string, StoredPage>();
  let url: string | undefined = first;
  while (url !== undefined) {
    const res = await request(url, { headers: { accept } });
    const body = Buffer.from(await res.body.arrayBuffer());
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'odata-version', 'dataserviceversion']) {
      const value = res.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const chunks: Buffer[] = [];
    for (let at = 0; at < body.length; at += 65536) chunks.push(Buffer.from(body.subarray(at, at + 65536)));
    pages.set(pageKey(url), { headers, chunks });
    const next = nextOf(JSON.parse(body.toString('utf8')) as Record<string, unknown>);
    url = typeof next === 'string' ? next : undefined;
  }
  return pages;
}

/** A transport answering from stored pages at once: only the client's own work is timed. */
function storedTransport(pages: Map<string, StoredPage>, origin: string): Transport {
  return {
    close: async () => undefined,
    async send(req: TransportRequest): Promise<TransportResponse> {
      const page = pages.get(pageKey(origin + req.path));
      if (page === undefined) throw new Error(`no stored page for ${req.path}`);
      return {
        status: 200, headers: page.headers,
        body: { cancel: async () => undefined, async *[Symbol.asyncIterator]() { yield* page.chunks; } },
      };
    },
  };
}

/**
 * Client work only: the same pages from memory (no socket, no server), sluice's stream() against hand loops that
 * join a page's chunks, decode and JSON.parse them as undici's `body.text()` does. CPU per record, interleaved rounds.
 */
export async function clientWorkOnly(server: { v4: string; v2: string }, pageSize: number): Promise<string[]> {
  const first = `${server.v4}Products?$top=${RECORDS}`;
  const first2 = `${server.v2}Products?$top=${RECORDS}`;
  const origin = new URL(server.v4).origin;
  const pages4 = await storePages(first, ACCEPT, (doc) => doc['@odata.nextLink']);
  const pages2 = await storePages(first2, 'application/json', (doc) => (doc['d'] as Record<string, unknown>)['__next']);
  const fromMemory = (pages: Map<string, StoredPage>): GetText => async (url) => {
    const page = pages.get(pageKey(url))!;
    return Buffer.concat(page.chunks).toString('utf8');
  };
  const od = createODataClient({ serviceURL: server.v4, version: '4.0', http: { retry: false, transport: storedTransport(pages4, origin) } });
  const od2 = createODataClient({ serviceURL: server.v2, version: '2.0', http: { retry: false, transport: storedTransport(pages2, origin) } });
  const contenders: [string, () => Promise<number>][] = [
    ['v4 hand loop (join + decode + JSON.parse + nextLink)', () => handLoop(first, fromMemory(pages4))],
    ['v4 sluice `stream()`', () => sluiceStream(od, RECORDS)],
    ['v4 sluice `streamBatches()`', () => sluiceBatches(od, RECORDS)],
    ['v2 hand loop (join + decode + JSON.parse, same shaping)', () => handLoopV2(first2, fromMemory(pages2))],
    ['v2 sluice `stream()`', () => sluiceStream(od2, RECORDS)],
    ['v2 sluice `streamBatches()`', () => sluiceBatches(od2, RECORDS)],
  ];
  const { cpu } = await interleaved(contenders);
  await od.close();
  await od2.close();
  return [
    `Client work only, ${fmt(pageSize)} per page: the same pages served from memory (no socket, no server; ${ROUNDS} interleaved rounds).`, '',
    '| client, pages from memory | CPU per record | CPU ratio (hand loop / client) |', '|---|---:|---:|',
    ...contenders.map(([who], c) => {
      const base = baseOf(contenders, who, 'hand loop');
      return `| ${who} | ${fmt(median(cpu[c]!), 2)} µs | ${median(cpu[c]!.map((x, i) => cpu[base]![i]! / x)).toFixed(2)} |`;
    }), '',
  ];
}

/** Index of the contender of the same protocol (`v4`/`v2`, the label's start) whose label holds `marker`: the base of its ratios. */
function baseOf(contenders: [string, unknown][], who: string, marker: string): number {
  return contenders.findIndex(([label]) => label.slice(0, 2) === who.slice(0, 2) && label.includes(marker));
}

/** Page sizes of the throughput table: the test server's default and a large one. */
export const PAGE_SIZES = [1000, 5000];

/** Records/s and client CPU per record of sluice and the hand loops on one server, interleaved rounds. */
export async function throughput(server: { v4: string; v2: string }, pageSize: number): Promise<string[]> {
  const od = createODataClient({ serviceURL: server.v4, version: '4.0', http: { retry: false } });
  const od2 = createODataClient({ serviceURL: server.v2, version: '2.0', http: { retry: false } });
  const first = `${server.v4}Products?$top=${RECORDS}`;
  const first2 = `${server.v2}Products?$top=${RECORDS}`;
  const pool = new Pool(new URL(server.v4).origin);
  const contenders: [string, () => Promise<number>][] = [
    ['v4 hand loop (undici.request + JSON.parse + nextLink)', () => handLoop(first, viaRequest)],
    ['v4 hand loop (undici.Pool + JSON.parse + nextLink)', () => handLoop(first, viaPool(pool, ACCEPT))],
    ['v4 sluice `stream()`', () => sluiceStream(od, RECORDS)],
    ['v4 sluice `streamBatches()`', () => sluiceBatches(od, RECORDS)],
    ['v2 hand loop (undici.Pool + JSON.parse, `d.results`, `__next`, `__metadata` dropped)', () => handLoopV2(first2, viaPool(pool, 'application/json'))],
    ['v2 sluice `stream()`', () => sluiceStream(od2, RECORDS)],
    ['v2 sluice `streamBatches()`', () => sluiceBatches(od2, RECORDS)],
  ];
  const { rate, cpu } = await interleaved(contenders);
  await od.close();
  await od2.close();
  await pool.close();
  // Ratios against the Pool loop of the same protocol, per round then median (rounds share the machine's noise).
  const ratioRows = contenders.map(([who], c) => {
    const base = baseOf(contenders, who, 'undici.Pool');
    const r = median(rate[c]!.map((x, i) => x / rate[base]![i]!));
    const cr = median(cpu[c]!.map((x, i) => cpu[base]![i]! / x));
    return `| ${who} | ${fmt(median(rate[c]!))} | ${r.toFixed(2)} | ${fmt(median(cpu[c]!), 2)} µs | ${cr.toFixed(2)} |`;
  });
  return [
    `### Records/s, ${fmt(RECORDS)} records at ${fmt(pageSize)} per page (${ROUNDS} interleaved rounds, median)`, '',
    '| client | records/s (wall) | ratio (records/s) | client CPU per record | CPU ratio (Pool loop / client) |', '|---|---:|---:|---:|---:|',
    ...ratioRows, '',
  ];
}

