// Snapshot loads read in partitions (several at once) into SQLite and a real PostgreSQL, against the
// testkit OData server's Products (no change tracking): every record once, each page's batches handed out
// together (one partition's, then its page's end), the table replaced only when every partition is in, a failed
// partition leaving the former table as it was.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, planPartitions, type ODataClient } from '@sluice/odata';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { SinkError, syncEntitySet } from '../src/index.js';
import { partitionBatches } from '../src/sync/partitions.js';
import { sqliteRows } from './sync-helpers.js';
import { startPostgresDatabase, type PostgresDatabase } from './postgres.js';

const PRODUCTS = 1234;
let srv: ODataTestServer;
let od: ODataClient;
let dir: string;
let postgres: PostgresDatabase;
beforeAll(async () => {
  [srv, dir, postgres] = await Promise.all([startODataServer({ products: PRODUCTS, pageSize: 50 }), mkdtemp(join(tmpdir(), 'sluice-sync-parts-')), startPostgresDatabase()]);
  od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { retry: false } });
}, 120_000);
afterAll(async () => {
  await postgres?.close();
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});


/** The service's products as `ID:Name` lines, by ID. */
async function serviceProducts(): Promise<string[]> {
  const rows = await od.from<{ ID: number; Name: string }>('Products').select('ID', 'Name').list();
  return rows.map((r) => `${r.ID}:${r.Name}`).sort();
}
const lines = (rows: readonly Record<string, unknown>[]): string[] => rows.map((r) => `${String(r['ID'])}:${String(r['Name'])}`).sort();

/** Range reads of Products since `mark` (the partitions' pages and the plan's boundary reads). */
const rangeReads = (mark: number): string[] => srv.requests.slice(mark).map((r) => decodeURIComponent(r.url)).filter((u) => /\/Products\?.*\$filter=ID (lt|ge) /.test(u));

describe('syncEntitySet in partitions (mode snapshot)', () => {
  it('SQLite: 8 partitions, 4 at once: every record once, the summary counts them; a failed partition leaves the former table whole', async () => {
    const path = join(dir, 'products.db');
    const mark = srv.requests.length;
    const notices: string[] = [];
    const result = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'snapshot', partitions: 8, parallel: 4, onNotice: (m) => notices.push(m) });
    expect(result).toMatchObject({ run: 'snapshot', mode: 'snapshot', upserted: PRODUCTS, partitions: 8 });
    expect(notices).toEqual([]);
    const rows = sqliteRows(path, 'SELECT ID, Name FROM Products');
    expect(rows).toHaveLength(PRODUCTS);
    expect(lines(rows)).toEqual(await serviceProducts());
    // Each of the 8 ranges was read (first page of each has no $skiptoken).
    const firstPages = new Set(rangeReads(mark).filter((u) => !u.includes('$skiptoken') && !u.includes('$top=1')).map((u) => /\$filter=([^&]+)/.exec(u)![1]));
    expect(firstPages.size).toBe(8);

    // The third page of every partition fails: the load stops, the table is the former one, the staging table stays for the next run to drop.
    srv.setFaults({ failPage: { page: 2, status: 500, times: 1_000_000 } });
    try {
      const failed = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'snapshot', partitions: 8, parallel: 4 }).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(Error);
      expect((failed as Error).message).toMatch(/500/);
    } finally {
      srv.setFaults({});
    }
    expect(lines(sqliteRows(path, 'SELECT ID, Name FROM Products'))).toEqual(await serviceProducts());
    expect(sqliteRows(path, "SELECT phase FROM sluice_sync WHERE table_name = 'Products'")).toEqual([{ phase: 'loading' }]);

    // The next run (unpartitioned this time) starts over and completes.
    const again = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'snapshot' });
    expect(again).toMatchObject({ run: 'snapshot', upserted: PRODUCTS });
    expect(again.partitions).toBeUndefined();
    expect(sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).toEqual([{ name: 'Products' }, { name: 'sluice_sync' }]);
  });

  it('PostgreSQL: 16 partitions on a string property, 16 at once, then fewer records than partitions (said); the table equals the service', async () => {
    const into = postgres.url;
    const result = await syncEntitySet({ od, entitySet: 'Products', into, table: 'products', mode: 'snapshot', partitions: 16, partitionBy: 'Name', parallel: 16 });
    expect(result).toMatchObject({ upserted: PRODUCTS, partitions: 16 });
    const { rows } = await postgres.client.query('SELECT "ID", "Name" FROM products');
    expect(lines(rows)).toEqual(await serviceProducts());

    const notices: string[] = [];
    const few = await syncEntitySet({
      od, entitySet: 'Products', query: od.from('Products').filter('ID le 3'), into, table: 'few', mode: 'snapshot', partitions: 10, boundaries: 'minmax',
      onNotice: (m) => notices.push(m),
    });
    expect(few).toMatchObject({ upserted: 3, partitions: 3 });
    expect(notices).toEqual(['made 3 of the 10 partitions asked for: only 3 distinct ranges of ID']);
    expect((await postgres.client.query('SELECT "ID" FROM few ORDER BY "ID"')).rows).toEqual([{ ID: 1 }, { ID: 2 }, { ID: 3 }]);
    expect(await postgres.tables()).toEqual(['few', 'products', 'sluice_sync']);
  });

  it('partitionBatches: 8 partitions read at once hand out each page\'s batches together, then its end, every record once', async () => {
    const query = od.from<{ ID: number }>('Products').select('ID');
    const plan = await planPartitions(query, { partitions: 8 });
    let page: number[] = [];
    const seen = new Set<number>();
    let pages = 0;
    let batches = 0;
    // Bodies sent in pieces: a page arrives as several batches while the other partitions' pages arrive too.
    srv.setFaults({ chunked: { chunkBytes: 256, delayMs: 5 } });
    try {
      for await (const item of partitionBatches(query, plan, 8, undefined)) {
        if (item.error !== undefined) throw item.error;
        if (item.page === undefined) {
          batches++;
          page.push(...item.value.map((r) => r.ID));
          continue;
        }
        // Every record before this end is of the page's partition (its range is in the page's URL).
        pages++;
        const url = decodeURIComponent(item.page.url);
        const from = Number(/ID ge (\d+)/.exec(url)?.[1] ?? -Infinity);
        const below = Number(/ID lt (\d+)/.exec(url)?.[1] ?? Infinity);
        expect(page.filter((id) => id < from || id >= below), url).toEqual([]);
        for (const id of page) seen.add(id);
        page = [];
      }
    } finally {
      srv.setFaults({});
    }
    expect(page).toEqual([]);
    expect(seen.size).toBe(PRODUCTS);
    expect(pages).toBeGreaterThanOrEqual(PRODUCTS / 50);
    expect(batches).toBeGreaterThan(pages);
  });

  it('an abort in the middle stops every partition and rejects with its reason; the former table stays whole', async () => {
    const path = join(dir, 'aborted.db');
    await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'snapshot', partitions: 4 });
    const controller = new AbortController();
    const reason = new Error('stopped by the test');
    const mark = srv.requests.length;
    const error = await syncEntitySet({
      od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'snapshot', partitions: 8, parallel: 8, signal: controller.signal,
      onProgress: (p) => { if (p.pages === 3) controller.abort(reason); },
    }).catch((e: unknown) => e);
    expect(error).toBe(reason);
    // No partition went on reading to its end: 8 partitions of about 154 records are 32 pages of 50 in all; after
    // 3 pages taken at most one page waits and one is read per partition.
    expect(rangeReads(mark).filter((u) => !u.includes('$top=1')).length).toBeLessThanOrEqual(3 + 2 * 8);
    expect(lines(sqliteRows(path, 'SELECT ID, Name FROM Products'))).toEqual(await serviceProducts());
  });

  it('refuses bad partition options before any row moves: not a snapshot, a property not in the set or without order, parallel out of range', async () => {
    const path = join(dir, 'refused.db');
    const refused = async (options: Partial<Parameters<typeof syncEntitySet>[0]>, code: string, text: RegExp): Promise<void> => {
      const error = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, ...options }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SinkError);
      expect((error as SinkError).code).toBe(code);
      expect((error as Error).message).toMatch(text);
    };
    await refused({ partitions: 4 }, 'mode', /partitions load a snapshot .*use mode snapshot, got auto/);
    await refused({ partitions: 4, mode: 'delta' }, 'mode', /use mode snapshot, got delta/);
    await refused({ parallel: 4, mode: 'snapshot' }, 'partition', /^parallel needs partitions$/);
    await refused({ partitions: 4, parallel: 0, mode: 'snapshot' }, 'partition', /parallel must be an integer from 1 to 256, got 0/);
    await refused({ partitions: 4, partitionBy: 'Nope', mode: 'snapshot' }, 'partition', /cannot split the load into partitions: partitionBy "Nope" is not a property of Products/);
    await refused({ partitions: 4, partitionBy: 'Active', mode: 'snapshot' }, 'partition', /"Active" of Products is Edm.Boolean, which cannot be split/);
    expect(sqliteRows(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Products%'")).toEqual([]);
  });
});
