// A delta sync into SQLite applies each page's changes as their body chunks arrive, in the page's one
// transaction: a key changed again in a later chunk of the same page is one row with its last values, counted
// once; a removal applies in its place; a page refused in its last chunk is rolled back whole (the table, the
// link to resume from and the counts as before), and the rerun applies it. From a node:http OData v4 service with
// change tracking that sends each page in two writes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { sluiceCLI, startServer, type TestServer } from '@sluice/testkit';
import { SinkError, syncEntitySet } from '../src/index.js';
import { sqliteRows } from './sync-helpers.js';

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="Demo" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String" Nullable="false"/><Property Name="Rate" Type="Edm.Double"/></EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const filler = 'x'.repeat(2000);
const removed = (id: number): unknown => ({ '@odata.removed': { reason: 'deleted' }, '@odata.id': `Items(${id})` });
/** The first load (two pages), then one delta run (two pages); each page as two writes of its body. */
const load: [unknown[], unknown[]][] = [
  [[{ ID: 1, Name: `a ${filler}`, Rate: 'INF' }, { ID: 2, Name: 'b' }], [{ ID: 3, Name: 'c' }]],
  [[{ ID: 4, Name: 'd' }], [{ ID: 5, Name: 'e', Rate: '-INF' }]],
];
const delta = (bad: boolean): [unknown[], unknown[]][] => [
  // Runs, as a whole page counts them: ID 1; ID 2 removed twice across the chunks (one run: once); ID 1 again and ID 6.
  // The second page: ID 3 removed; ID 4 changed in both chunks (one run: one row, its last values, once); ID 5 removed.
  [[{ ID: 1, Name: `a1 ${filler}` }, removed(2)], [removed(2), { ID: 1, Name: 'a2' }, { ID: 6, Name: 'f' }]],
  [[removed(3), { ID: 4, Name: `d1 ${filler}` }], [bad ? { ID: 4, Name: null } : { ID: 4, Name: 'd2' }, removed(5)]],
];

let srv: TestServer;
let od: ODataClient;
let dir: string;
let bad = false;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-sqlite-delta-batches-'));
  srv = await startServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
    if (pathname.endsWith('/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }).end(METADATA);
      return;
    }
    const token = searchParams.get('$deltatoken');
    if (token === '2') {
      // Nothing changed since the delta run.
      res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' }).end('{"@odata.context":"$metadata#Items/$delta","value":[],"@odata.deltaLink":"Items?$deltatoken=2"}');
      return;
    }
    const page = Number(searchParams.get('$skiptoken') ?? 0);
    const pages = token === null ? load : delta(bad);
    const [first, second] = pages[page]!;
    const tail = page === 0
      ? `,"@odata.nextLink":"Items?${token === null ? '' : `$deltatoken=${token}&`}$skiptoken=1"`
      : `,"@odata.deltaLink":"Items?$deltatoken=${token === null ? 1 : 2}"`;
    const items = (list: unknown[]): string => list.map((i) => JSON.stringify(i)).join(',');
    res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' });
    res.write(`{"@odata.context":"$metadata#Items/$delta","value":[${items(first)},`);
    setTimeout(() => res.end(`${items(second)}]${tail}}`), 20);
  });
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

const rows = sqliteRows;

describe('syncEntitySet into SQLite, delta pages applied as their changes arrive', () => {
  it('loads, then applies a delta run chunk by chunk with exact counts; a page refused in its last chunk is rolled back whole', async () => {
    const path = join(dir, 'items.db');
    const into = `sqlite:${path}`;
    const loaded = await syncEntitySet({ od, entitySet: 'Items', into });
    expect(loaded).toMatchObject({ run: 'load', mode: 'delta', upserted: 5, deleted: 0, pages: 2 });
    expect(rows(path, 'SELECT ID, Rate FROM Items ORDER BY ID')).toEqual([
      { ID: 1, Rate: Infinity }, { ID: 2, Rate: null }, { ID: 3, Rate: null }, { ID: 4, Rate: null }, { ID: 5, Rate: -Infinity },
    ]);
    const table = rows(path, 'SELECT ID, Name FROM Items ORDER BY ID');
    expect(rows(path, 'SELECT resume_link, run_upserted, run_deleted FROM sluice_sync')).toEqual([{ resume_link: `${srv.origin}/odata/Items?$deltatoken=1`, run_upserted: 5, run_deleted: 0 }]);

    bad = true;
    const error = await syncEntitySet({ od, entitySet: 'Items', into }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('value');
    expect((error as Error).message).toMatch(/Name.*not nullable.*ID.*4/s);
    // The first page is committed (its link to resume from is the second page), the second page's first chunk is not.
    expect(rows(path, 'SELECT ID, Name FROM Items ORDER BY ID')).toEqual([
      { ID: 1, Name: 'a2' }, { ID: 3, Name: 'c' }, { ID: 4, Name: 'd' }, { ID: 5, Name: 'e' }, { ID: 6, Name: 'f' },
    ]);
    expect(table).toHaveLength(5);
    expect(rows(path, 'SELECT resume_link, next_link, run_upserted, run_deleted FROM sluice_sync')).toEqual([
      { resume_link: `${srv.origin}/odata/Items?$deltatoken=1`, next_link: `${srv.origin}/odata/Items?$deltatoken=1&$skiptoken=1`, run_upserted: 3, run_deleted: 1 },
    ]);

    bad = false;
    const done = await syncEntitySet({ od, entitySet: 'Items', into });
    // A delta read is read again from its delta link (its changes are the entities' current state): the first page
    // again (3 upserted, 1 deleted), then the second: ID 3 removed, ID 4 changed in both chunks (once), ID 5 removed.
    expect(done).toMatchObject({ run: 'delta', upserted: 4, deleted: 3, pages: 2 });
    expect(rows(path, 'SELECT ID, Name, Rate FROM Items ORDER BY ID')).toEqual([
      { ID: 1, Name: 'a2', Rate: null }, { ID: 4, Name: 'd2', Rate: null }, { ID: 6, Name: 'f', Rate: null },
    ]);
    expect(rows(path, 'SELECT resume_link, next_link, run_upserted, run_deleted FROM sluice_sync')).toEqual([
      { resume_link: `${srv.origin}/odata/Items?$deltatoken=2`, next_link: null, run_upserted: 7, run_deleted: 4 },
    ]);
  });

  it('a delta run killed (SIGKILL) after a batch of a page was applied keeps no part of that page; the rerun ends equal, counted exactly', async () => {
    bad = false;
    const cli = await sluiceCLI();
    const loadedRows = [{ ID: 1, Name: `a ${filler}` }, { ID: 2, Name: 'b' }, { ID: 3, Name: 'c' }, { ID: 4, Name: 'd' }, { ID: 5, Name: 'e' }];
    const afterFirst = [{ ID: 1, Name: 'a2' }, { ID: 3, Name: 'c' }, { ID: 4, Name: 'd' }, { ID: 5, Name: 'e' }, { ID: 6, Name: 'f' }];
    const expected = [{ ID: 1, Name: 'a2' }, { ID: 4, Name: 'd2' }, { ID: 6, Name: 'f' }];
    // What each kill left: nothing of the delta run, or its first page committed.
    const left = new Set<string>();
    // The n-th batch applied of the delta run (the load is not killed): page one's first, then as the chunks came.
    // A page is one or two batches (a child that reads late gets both writes of a page at once), so n = 1 is in
    // page one, and n = 2 or 3 is the first batch of page two, after page one was committed.
    for (const n of [1, 2, 3, 4]) {
      const path = join(dir, `killed-${n}.db`);
      const args = ['sync', `${srv.origin}/odata/`, 'Items', '--into', `sqlite:${path}`, '--quiet'];
      const load = await cli.run(args);
      expect(load.code, load.stderr).toBe(0);
      const killed = await cli.run(args, { env: { SLUICE_SYNC_KILL_AT: `batch-written:${n}` } });
      let committedFirst = false;
      if (killed.signal === 'SIGKILL') {
        // Committed pages only: none, or the whole first page with its counts; never the killed page's batches.
        const table = rows(path, 'SELECT ID, Name FROM Items ORDER BY ID');
        expect([loadedRows, afterFirst]).toContainEqual(table);
        committedFirst = table.length === afterFirst.length && (table[0] as { Name: string }).Name === 'a2';
        left.add(committedFirst ? 'page one' : 'nothing');
        expect(rows(path, 'SELECT run_upserted, run_deleted FROM sluice_sync')).toEqual([committedFirst ? { run_upserted: 3, run_deleted: 1 } : { run_upserted: 5, run_deleted: 0 }]);
      } else {
        expect(killed).toMatchObject({ code: 0, signal: null });
      }
      const rerun = await cli.run(args);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(rows(path, 'SELECT ID, Name FROM Items ORDER BY ID')).toEqual(expected);
      // A delta read is read again from its delta link: a committed first page is applied and counted again.
      const runCounts = killed.signal !== 'SIGKILL' ? { run_upserted: 0, run_deleted: 0 }
        : committedFirst ? { run_upserted: 7, run_deleted: 4 } : { run_upserted: 4, run_deleted: 3 };
      expect(rows(path, 'SELECT run_upserted, run_deleted FROM sluice_sync')).toEqual([runCounts]);
    }
    expect([...left].sort()).toEqual(['nothing', 'page one']);
  }, 90_000);
});
