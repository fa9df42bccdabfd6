// Doubles and Singles a v4 service sends as "INF", "-INF", "NaN" (decoded to numbers by the client, which has the
// model) through `syncEntitySet`, in the first load and in a delta read: PostgreSQL keeps all three (COPY into the
// staging table, COPY + INSERT for the delta's upserts), SQLite keeps the infinities and refuses NaN (a REAL reads
// it back as NULL) naming the column and the key; complex and collection columns write them as JSON strings.
// Against a node:http OData v4 service with change tracking, a real PostgreSQL and SQLite.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { SinkError, syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { startPostgresDatabase, type PostgresDatabase } from './postgres.js';

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="Demo" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <ComplexType Name="Range"><Property Name="Low" Type="Edm.Double"/><Property Name="High" Type="Edm.Double"/></ComplexType>
    <EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Price" Type="Edm.Double"/><Property Name="Ratio" Type="Edm.Single"/>
      <Property Name="Range" Type="Demo.Range"/><Property Name="Samples" Type="Collection(Edm.Double)"/>
    </EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const FULL = [
  { ID: 1, Price: 'INF', Ratio: '-INF', Range: { Low: '-INF', High: 1 }, Samples: ['NaN', 1.5, 'INF'] },
  { ID: 2, Price: '-INF', Ratio: '1.5E+2', Range: null, Samples: [] },
];
const REMOVE_2 = { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(2)', reason: 'deleted' };
/** The delta read: ID 1 changed to NaN Doubles, ID 3 new, ID 2 removed. */
const WITH_NAN = [{ ID: 1, Price: 'NaN', Ratio: 'NaN', Range: { Low: 'NaN', High: 'INF' }, Samples: ['-INF'] }, { ID: 3, Price: '2.5', Ratio: 'INF', Range: null, Samples: [] }, REMOVE_2];
const NO_NAN = [{ ID: 1, Price: '-INF', Ratio: 'INF', Range: { Low: 'NaN', High: 'INF' }, Samples: ['-INF'] }, { ID: 3, Price: '2.5', Ratio: 'INF', Range: null, Samples: [] }, REMOVE_2];

let delta: unknown[] = WITH_NAN;
let srv: TestServer;
let od: ODataClient;
let postgres: PostgresDatabase;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-sync-floats-'));
  [srv, postgres] = await Promise.all([
    startServer((req, res) => {
      const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
      const version = { 'odata-version': '4.0' };
      const token = Number(searchParams.get('$deltatoken') ?? 0);
      if (pathname.endsWith('/$metadata')) res.writeHead(200, { 'content-type': 'application/xml', ...version }).end(METADATA);
      else if (pathname.endsWith('/Items')) {
        const value = token === 0 ? FULL : token === 1 ? delta : [];
        sendJSON(res, 200, { '@odata.context': '$metadata#Items', value, '@odata.deltaLink': `Items?$deltatoken=${Math.min(token + 1, 2)}` }, version);
      } else sendJSON(res, 404, { error: { code: '404', message: 'not found' } }, version);
    }),
    startPostgresDatabase(),
  ]);
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
}, 120_000);
afterAll(async () => {
  await od?.close();
  await postgres?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

async function pgRows(table: string): Promise<Record<string, unknown>[]> {
  return (await postgres.client.query(`SELECT "ID", "Price"::text AS "Price", "Ratio"::text AS "Ratio", "Range", "Samples" FROM ${table} ORDER BY "ID"`)).rows;
}

function sqliteRows(path: string): Record<string, unknown>[] {
  const db = openSqlite(path);
  try {
    return db.prepare('SELECT ID, Price, Ratio, Range, Samples FROM Items ORDER BY ID').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('Doubles "INF", "-INF", "NaN" through sluice sync', () => {
  it('PostgreSQL: double precision and real keep Infinity, -Infinity and NaN in the first load (COPY) and the delta upserts (COPY + INSERT); JSON columns hold "INF"/"NaN"', async () => {
    delta = WITH_NAN;
    expect(await syncEntitySet({ od, entitySet: 'Items', into: postgres.url, table: 'items' })).toMatchObject({ run: 'load', mode: 'delta', upserted: 2 });
    expect(await pgRows('items')).toEqual([
      { ID: 1, Price: 'Infinity', Ratio: '-Infinity', Range: { Low: '-INF', High: 1 }, Samples: ['NaN', 1.5, 'INF'] },
      { ID: 2, Price: '-Infinity', Ratio: '150', Range: null, Samples: [] },
    ]);
    expect(await syncEntitySet({ od, entitySet: 'Items', into: postgres.url, table: 'items' })).toMatchObject({ run: 'delta', upserted: 2, deleted: 1 });
    expect(await pgRows('items')).toEqual([
      { ID: 1, Price: 'NaN', Ratio: 'NaN', Range: { Low: 'NaN', High: 'INF' }, Samples: ['-INF'] },
      { ID: 3, Price: '2.5', Ratio: 'Infinity', Range: null, Samples: [] },
    ]);
    // The values compare as PostgreSQL's own: NaN equals NaN there and sorts above every number.
    const nan = await postgres.client.query(`SELECT count(*)::int AS n FROM items WHERE "Price" = 'NaN'::float8 AND "Ratio" = 'NaN'::real`);
    expect(nan.rows[0]).toEqual({ n: 1 });
  });

  it('SQLite: Infinity and -Infinity are stored in REAL columns; a NaN is refused with a SinkError naming the column and the key, the page not applied and the run resumable', async () => {
    delta = WITH_NAN;
    const path = join(dir, 'items.db');
    const into = `sqlite:${path}`;
    expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ run: 'load', upserted: 2 });
    const loaded = [
      { ID: 1, Price: Infinity, Ratio: -Infinity, Range: '{"Low":"-INF","High":1}', Samples: '["NaN",1.5,"INF"]' },
      { ID: 2, Price: -Infinity, Ratio: 150, Range: null, Samples: '[]' },
    ];
    expect(sqliteRows(path)).toEqual(loaded);
    const refused = await syncEntitySet({ od, entitySet: 'Items', into }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SinkError);
    expect(refused).toMatchObject({ code: 'value' });
    expect((refused as Error).message).toBe(
      'column Price (Edm.Double): NaN cannot be stored in SQLite (a REAL column reads it back as NULL); sync into PostgreSQL, or export to Parquet, which keep it (entity set Items, the record with key ID=1)',
    );
    expect(sqliteRows(path)).toEqual(loaded);
    // The service's value changed: the next run applies the same delta page.
    delta = NO_NAN;
    expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ run: 'delta', upserted: 2, deleted: 1 });
    expect(sqliteRows(path)).toEqual([
      { ID: 1, Price: -Infinity, Ratio: Infinity, Range: '{"Low":"NaN","High":"INF"}', Samples: '["-INF"]' },
      { ID: 3, Price: 2.5, Ratio: Infinity, Range: null, Samples: '[]' },
    ]);
  });
});
