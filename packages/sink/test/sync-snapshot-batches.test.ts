// A snapshot writes each page's records as their body chunks arrive, in the page's one transaction (SQLite: row by
// row; a real PostgreSQL: into the page's one COPY): a key sent again in a later chunk of the same page is one row
// with its last values and counted once, and a record refused in a page's last chunk rolls back the rows of its
// earlier chunks (PostgreSQL: cancels the COPY under way; the staging table keeps only the pages committed before),
// from a node:http OData v4 service that sends each page in two writes; so is a page whose body breaks after its first
// write. A `sluice sync` child killed (SIGKILL) after a batch of a page was written leaves no part of that page; its
// rerun loads the set.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, PageError, type ODataClient } from '@sluice/odata';
import { sluiceCLI, startServer, type TestServer } from '@sluice/testkit';
import { SinkError, syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { usePostgres } from './postgres.js';

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

const postgres = usePostgres();
let srv: TestServer;
let od: ODataClient;
let bad = false;
/** The second page's body breaks after its first write. */
let broken = false;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-snapshot-batches-'));
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
    setTimeout(() => (broken && page === 1 ? res.destroy() : res.end(`${items(second)}]${next}}`)), 20);
  });
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A target of the tests: where a table goes, its rows by SQL (run counts as numbers), its tables. */
interface Target {
  readonly name: string;
  into(table: string): string;
  rows(table: string, sql: string): Promise<unknown[]>;
  tables(table: string): Promise<string[]>;
}

const counted = (rows: Record<string, unknown>[]): unknown[] => rows.map((r) => ('run_upserted' in r ? { run_upserted: Number(r['run_upserted']) } : { ...r }));

const sqlite: Target = {
  name: 'SQLite',
  into: (table) => `sqlite:${join(dir, `${table}.db`)}`,
  rows: (table, sql) => {
    const db = openSqlite(join(dir, `${table}.db`));
    try {
      return Promise.resolve(counted(db.prepare(sql).all() as Record<string, unknown>[]));
    } finally {
      db.close();
    }
  },
  tables: async (table) => (await sqlite.rows(table, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")).map((r) => String((r as { name: string }).name)),
};

const pgTarget: Target = {
  name: 'PostgreSQL',
  into: () => postgres().url,
  rows: async (_, sql) => counted((await postgres().client.query(sql)).rows),
  tables: () => postgres().tables(),
};

for (const target of [sqlite, pgTarget]) {

  describe(`syncEntitySet --mode snapshot into ${target.name}, batch by batch as the records arrive`, () => {
    it('a key sent again within a page is one row with its last values, counted once; a page refused in its last chunk is rolled back whole', async () => {
      bad = true;
      const table = `items_${target.name}`;
      const rows = (sql: string): Promise<unknown[]> => target.rows(table, sql);
      const error = await syncEntitySet({ od, entitySet: 'Items', table, into: target.into(table), mode: 'snapshot' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SinkError);
      expect((error as SinkError).code).toBe('value');
      expect((error as Error).message).toMatch(/Name.*not nullable.*ID.*4|ID.*4.*Name/s);
      // The first page is committed in the staging table; the second page's first chunk (ID 2 again, ID 3) is not.
      expect(await rows(`SELECT "ID", "Name" FROM "${table}__sluice_load" ORDER BY "ID"`)).toEqual([{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b' }]);
      expect(await target.tables(table)).not.toContain(table);
      expect(await rows(`SELECT run_upserted FROM sluice_sync WHERE table_name = '${table}'`)).toEqual([{ run_upserted: 2 }]);

      bad = false;
      const pagesDone: number[] = [];
      const result = await syncEntitySet({ od, entitySet: 'Items', table, into: target.into(table), mode: 'snapshot', onProgress: (p) => pagesDone.push(p.upserted) });
      // The first page has two keys (ID 1 twice), the second three (ID 3 twice; ID 2 again, as a later page counts).
      expect(result).toMatchObject({ run: 'snapshot', upserted: 5, pages: 2 });
      expect(pagesDone).toEqual([2, 5]);
      expect(await rows(`SELECT "ID", "Name" FROM "${table}" ORDER BY "ID"`)).toEqual([
        { ID: 1, Name: 'a again' }, { ID: 2, Name: 'b again' }, { ID: 3, Name: 'c again' }, { ID: 4, Name: 'd' },
      ]);
      expect(await rows(`SELECT run_upserted FROM sluice_sync WHERE table_name = '${table}'`)).toEqual([{ run_upserted: 5 }]);
    });

    it('a page whose body breaks after its first chunk (into PostgreSQL: its COPY under way, cancelled) is rolled back whole; the rerun loads the set', async () => {
      bad = false;
      broken = true;
      const table = `broken_${target.name}`;
      const rows = (sql: string): Promise<unknown[]> => target.rows(table, sql);
      try {
        const error = await syncEntitySet({ od, entitySet: 'Items', table, into: target.into(table), mode: 'snapshot' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(PageError);
      } finally {
        broken = false;
      }
      expect(await rows(`SELECT "ID", "Name" FROM "${table}__sluice_load" ORDER BY "ID"`)).toEqual([{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b' }]);
      expect(await rows(`SELECT run_upserted FROM sluice_sync WHERE table_name = '${table}'`)).toEqual([{ run_upserted: 2 }]);
      expect(await syncEntitySet({ od, entitySet: 'Items', table, into: target.into(table), mode: 'snapshot' })).toMatchObject({ run: 'snapshot', upserted: 5, pages: 2 });
      expect(await rows(`SELECT "ID", "Name" FROM "${table}" ORDER BY "ID"`)).toEqual([
        { ID: 1, Name: 'a again' }, { ID: 2, Name: 'b again' }, { ID: 3, Name: 'c again' }, { ID: 4, Name: 'd' },
      ]);
    });

    it('a sync killed (SIGKILL) after a batch of a page was written (PostgreSQL: sent into its COPY) keeps no part of that page; the rerun loads the set', async () => {
      bad = false;
      const cli = await sluiceCLI();
      const expected = [{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b again' }, { ID: 3, Name: 'c again' }, { ID: 4, Name: 'd' }];
      let kills = 0;
      // The n-th batch written: page one's first (n = 1), then page one's second or page two's first, as the chunks came.
      for (const n of [1, 2, 3]) {
        const table = `killed_${n}_${target.name}`;
        const rows = (sql: string): Promise<unknown[]> => target.rows(table, sql);
        const args = ['sync', `${srv.origin}/odata/`, 'Items', '--into', target.into(table), '--table', table, '--mode', 'snapshot', '--quiet'];
        const killed = await cli.run(args, { env: { SLUICE_SYNC_KILL_AT: `batch-written:${n}` } });
        if (killed.signal === 'SIGKILL') {
          kills++;
          // Committed pages only: nothing, or the whole first page (its counts with it); never the killed page's batches.
          const staged = await rows(`SELECT "ID", "Name" FROM "${table}__sluice_load" ORDER BY "ID"`);
          expect([[], [{ ID: 1, Name: 'a again' }, { ID: 2, Name: 'b' }]]).toContainEqual(staged);
          expect(await rows(`SELECT run_upserted FROM sluice_sync WHERE table_name = '${table}'`)).toEqual([{ run_upserted: staged.length }]);
          expect(await target.tables(table)).not.toContain(table);
        } else {
          expect(killed).toMatchObject({ code: 0, signal: null });
        }
        const rerun = await cli.run(args);
        expect(rerun.code, rerun.stderr).toBe(0);
        expect(await rows(`SELECT "ID", "Name" FROM "${table}" ORDER BY "ID"`)).toEqual(expected);
        expect(await rows(`SELECT run_upserted FROM sluice_sync WHERE table_name = '${table}'`)).toEqual([{ run_upserted: 5 }]);
      }
      expect(kills).toBeGreaterThanOrEqual(2);
    }, 120_000);
  });
}
