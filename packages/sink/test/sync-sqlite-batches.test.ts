// A snapshot into SQLite writes each page's records as their body chunks arrive, in the page's one transaction:
// a key sent again in a later chunk of the same page is one row with its last values and counted once, and a
// record refused in a page's last chunk rolls back the rows of its earlier chunks (the staging table keeps only
// the pages committed before), from a node:http OData v4 service that sends each page in two writes. A `sluice sync`
// child killed (SIGKILL) after a batch of a page was written leaves no part of that page; its rerun loads the set.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { sluiceCLI, startServer, type TestServer } from '@sluice/testkit';
import { SinkError, syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="Demo" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String" Nullable="false"/></EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const filler = 'x'.repeat(2000);
/** Each page as two writes of its body; the second page sends ID 2 again (a later page) and ID 3 twice (its two chunks). */
const pages = (bad: boolean): [unknown[], unknown[]][] => [
  [[{ ID: 1, Name: `a ${filler}` }, { ID: 2, Name: 'b' }], [{ ID: 1, Name: 'a again' }]],
  [[{ ID: 2, Name: 'b again' }, { ID: 3, Name: `c ${filler}` }], [{ ID: 3, Name: 'c again' }, bad ? { ID: 4, Name: null } : { ID: 4, Name: 'd' }]],
];

let srv: TestServer;
let od: ODataClient;
let dir: string;
let bad = false;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-sqlite-batches-'));
  srv = await startServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
    if (pathname.endsWith('/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }).end(METADATA);
      return;
    }
    const page = Number(searchParams.get('$skiptoken') ?? 0);
    const [first, second] = pages(bad)[page]!;
    const next = page === 0 ? ',"@odata.nextLink":"Items?$skiptoken=1"' : '';
    const items = (list: unknown[]): string => list.map((i) => JSON.stringify(i)).join(',');
    res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' });
    res.write(`{"@odata.context":"$metadata#Items","value":[${items(first)},`);
    // The page's second part as a later chunk (when the client read the first one already: either way the same rows).
    setTimeout(() => res.end(`${items(second)}]${next}}`), 20);
  });
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

function rows(path: string, sql: string): unknown[] {
  const db = openSqlite(path);
  try {
    return db.prepare(sql).all().map((r) => ({ ...(r as object) }));
  } finally {
    db.close();
  }
}

describe('syncEntitySet --mode snapshot into SQLite, page by page as the records arrive', () => {
  it('a key sent again within a page is one row with its last values, counted once; a page refused in its last chunk is rolled back whole', async () => {
    const path = join(dir, 'items.db');
    bad = true;
    const error = await syncEntitySet({ od, entitySet: 'Items', into: `sqlite:${path}`, mode: 'snapshot' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('value');
    expect((error as Error).message).toMatch(/Name.*not nullable.*ID.*4|ID.*4.*Name/s);
    // The first page is committed in the staging table; the second page's first chunk (ID 2 again, ID 3) is not.
    expect(rows(path, 'SELECT ID, Name FROM Items__sluice_load ORDER BY ID')).toEqual([{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b' }]);
    expect(rows(path, "SELECT name FROM sqlite_master WHERE name = 'Items'")).toEqual([]);
    expect(rows(path, 'SELECT run_upserted FROM sluice_sync')).toEqual([{ run_upserted: 2 }]);

    bad = false;
    const pagesDone: number[] = [];
    const result = await syncEntitySet({ od, entitySet: 'Items', into: `sqlite:${path}`, mode: 'snapshot', onProgress: (p) => pagesDone.push(p.upserted) });
    // The first page has two keys (ID 1 twice), the second three (ID 3 twice; ID 2 again, as a later page counts).
    expect(result).toMatchObject({ run: 'snapshot', upserted: 5, pages: 2 });
    expect(pagesDone).toEqual([2, 5]);
    expect(rows(path, 'SELECT ID, Name FROM Items ORDER BY ID')).toEqual([
      { ID: 1, Name: 'a again' }, { ID: 2, Name: 'b again' }, { ID: 3, Name: 'c again' }, { ID: 4, Name: 'd' },
    ]);
    expect(rows(path, 'SELECT run_upserted FROM sluice_sync')).toEqual([{ run_upserted: 5 }]);
  });

  it('a sync killed (SIGKILL) after a batch of a page was written keeps no part of that page; the rerun loads the set', async () => {
    bad = false;
    const cli = await sluiceCLI();
    const expected = [{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b again' }, { ID: 3, Name: 'c again' }, { ID: 4, Name: 'd' }];
    let kills = 0;
    // The n-th batch written: page one's first (n = 1), then page one's second or page two's first, as the chunks came.
    for (const n of [1, 2, 3]) {
      const path = join(dir, `killed-${n}.db`);
      const args = ['sync', `${srv.origin}/odata/`, 'Items', '--into', `sqlite:${path}`, '--mode', 'snapshot', '--quiet'];
      const killed = await cli.run(args, { env: { SLUICE_SYNC_KILL_AT: `batch-written:${n}` } });
      if (killed.signal === 'SIGKILL') {
        kills++;
        // Committed pages only: nothing, or the whole first page (its counts with it); never the killed page's batches.
        const staged = rows(path, 'SELECT ID, Name FROM Items__sluice_load ORDER BY ID');
        expect([[], [{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b' }]]).toContainEqual(staged);
        expect(rows(path, 'SELECT run_upserted FROM sluice_sync')).toEqual([{ run_upserted: staged.length }]);
        expect(rows(path, "SELECT name FROM sqlite_master WHERE name = 'Items'")).toEqual([]);
      } else {
        expect(killed).toMatchObject({ code: 0, signal: null });
      }
      const rerun = await cli.run(args);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rows(path, 'SELECT ID, Name FROM Items ORDER BY ID')).toEqual(expected);
      expect(rows(path, 'SELECT run_upserted FROM sluice_sync')).toEqual([{ run_upserted: 5 }]);
    }
    expect(kills).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
