// PageChanges: a delta page applied batch by batch as its changes arrive gives the rows and the counts that
// applyChanges gives for the whole page, wherever the batches split it (a run of upserts or deletes spanning
// batches, a key changed twice within a run, upsert-delete-upsert of one key), into SQLite, and into a real
// PostgreSQL, where each run is one COPY fed batch by batch: into a table the connection created (a load: COPY
// straight into it; a key an earlier page loaded goes the upsert way) and into one it did not (COPY into a temporary
// table, then one statement); a key sent again in a later batch of the same run still ends with its last values.
// A snapshot page fed by addRecords gives the same, a key sent again within one batch too.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeltaChange } from '@sluice/odata';
import { openTarget, type Column, type SqlTarget } from '../src/index.js';
import { RowMaker } from '../src/sync/apply.js';
import { applyChanges, PageChanges } from '../src/sync/delta-apply.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { usePostgres } from './postgres.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'sluice-delta-apply-')); });
afterAll(() => rm(dir, { recursive: true, force: true }));

const columns: Column[] = [
  { name: 'K', edmType: 'Edm.Int64', kind: 'int64', nullable: false, key: true },
  { name: 'V', edmType: 'Edm.String', kind: 'string', nullable: true, key: false },
];

const page: DeltaChange<unknown>[] = [
  { kind: 'entity', value: { K: 1, V: 'one' } },
  { kind: 'entity', value: { K: 2, V: 'two' } },
  { kind: 'entity', value: { K: '1', V: 'one again' } },
  { kind: 'removed', id: 'T(3)', reason: 'deleted' },
  { kind: 'removed', id: 'T(2)', reason: 'deleted' },
  { kind: 'link', source: 'T(1)', relationship: 'R', target: 'U(1)' },
  { kind: 'removed', id: 'T(3L)', reason: 'deleted' },
  { kind: 'entity', value: { K: 2, V: 'two back' } },
  { kind: 'entity', value: { K: 4, V: 'four' } },
  { kind: 'entity', value: { K: 2, V: 'two last' } },
  { kind: 'removed', id: 'T(4)', reason: 'deleted' },
];

/** Every split of `changes` into two batches, and one batch per change. */
function splitsOf(changes: DeltaChange<unknown>[]): DeltaChange<unknown>[][][] {
  const splits: DeltaChange<unknown>[][][] = [];
  for (let at = 0; at <= changes.length; at++) splits.push([changes.slice(0, at), changes.slice(at)]);
  splits.push(changes.map((c) => [c]));
  return splits;
}

/** Applies `apply` to a table holding K 3 and 5, and gives its counts and rows. */
async function run(name: string, apply: (target: Awaited<ReturnType<typeof openTarget>>, rows: RowMaker) => Promise<unknown>): Promise<{ counts: unknown; rows: unknown[] }> {
  const path = join(dir, `${name}.db`);
  const target = await openTarget(`sqlite:${path}`);
  let counts: unknown;
  try {
    await target.createTable('T', columns);
    const rows = new RowMaker(target, columns, 'T');
    await target.transaction(() => target.upsert('T', columns, [[3n, 'three'], [5n, 'five']]));
    counts = await target.transaction(() => apply(target, rows));
  } finally {
    await target.close();
  }
  const db = openSqlite(path);
  try {
    return { counts, rows: db.prepare('SELECT CAST(K AS TEXT) AS K, V FROM T ORDER BY K').all().map((r) => ({ ...(r as object) })) };
  } finally {
    db.close();
  }
}

describe('PageChanges: a delta page applied batch by batch', () => {
  it('gives the rows and counts of applyChanges over the whole page, however the page is split into batches', async () => {
    const whole = await run('whole', (target, rows) => applyChanges(target, 'T', rows, page));
    // Runs: upserts {1, 2}, deletes {3, 2} (3 twice; the link skipped), upserts {2, 4}, deletes {4}.
    expect(whole.counts).toEqual({ upserted: 4, deleted: 3 });
    expect(whole.rows).toEqual([{ K: '1', V: 'one again' }, { K: '2', V: 'two last' }, { K: '5', V: 'five' }]);
    for (const [i, batches] of splitsOf(page).entries()) {
      const split = await run(`split-${i}`, async (target, rows) => {
        const changes = new PageChanges(target, 'T', rows);
        for (const batch of batches) await changes.add(batch);
        return changes.end();
      });
      expect(split, `split ${i}`).toEqual(whole);
    }
  });

  it('a value its column cannot hold is a SinkError naming the record', async () => {
    const error = await run('bad', async (target, rows) => {
      const changes = new PageChanges(target, 'T', rows);
      await changes.add([{ kind: 'entity', value: { K: 'x', V: 'bad' } }]);
    }).catch((e: unknown) => e);
    expect(String(error)).toMatch(/K/);
  });
});

const postgres = usePostgres();
// K 5 was there before the page: in a load, the COPY meets its key and the run goes the upsert way.
const pgPage: DeltaChange<unknown>[] = [...page, { kind: 'entity', value: { K: 5, V: 'five again' } }, { kind: 'entity', value: { K: 6, V: 'six' } }];

let tables = 0;

/**
 * Applies `apply` to a new table holding K 3 and 5 (created by the target's own connection when `load`, else by the
 * test's client), in one transaction; gives its counts and rows.
 */
async function runPg(load: boolean, apply: (target: SqlTarget, rows: RowMaker, table: string) => Promise<unknown>): Promise<{ counts: unknown; rows: unknown[] }> {
  const table = `t${++tables}`;
  const target = await openTarget(postgres().url);
  let counts: unknown;
  try {
    if (load) await target.createTable(table, columns);
    else await postgres().client.query(`CREATE TABLE ${table} ("K" bigint PRIMARY KEY, "V" text)`);
    await postgres().client.query(`INSERT INTO ${table} VALUES (3, 'three'), (5, 'five')`);
    counts = await target.transaction(() => apply(target, new RowMaker(target, columns, 'T'), table));
  } finally {
    await target.close();
  }
  return { counts, rows: (await postgres().client.query(`SELECT "K"::text AS "K", "V" FROM ${table} ORDER BY "K"`)).rows };
}

const expected = {
  // Runs: upserts {1, 2}, deletes {3, 2}, upserts {2, 4}, deletes {4}, upserts {5, 6}.
  counts: { upserted: 6, deleted: 3 },
  rows: [{ K: '1', V: 'one again' }, { K: '2', V: 'two last' }, { K: '5', V: 'five again' }, { K: '6', V: 'six' }],
};

describe('PageChanges into PostgreSQL: one COPY per run, fed batch by batch', () => {
  for (const load of [true, false]) {
    it(`${load ? 'a load (COPY straight into the table)' : 'a tracked table (COPY into a temporary table)'}: the rows and counts of the whole page, however it is split`, async () => {
      expect(await runPg(load, (target, rows, table) => applyChanges(target, table, rows, pgPage))).toEqual(expected);
      for (const [i, batches] of splitsOf(pgPage).entries()) {
        const split = await runPg(load, async (target, rows, table) => {
          const changes = new PageChanges(target, table, rows);
          for (const batch of batches) await changes.add(batch);
          return changes.end();
        });
        expect(split, `split ${i}`).toEqual(expected);
      }
    }, 60_000);
  }
});


// A snapshot's batches (PageChanges.addRecords): each row made in one reused array and its COPY text written at once.
const records = [{ K: 1, V: 'one' }, { K: 2, V: 'two' }, { K: '1', V: 'one again' }, { K: 5, V: 'five again' }, { K: 6 }, { K: 2, V: 'two last' }, { K: 7, V: null }];

describe('PageChanges.addRecords into PostgreSQL: a snapshot page batch by batch', () => {
  for (const load of [true, false]) {
    it(`${load ? 'a load' : 'a tracked table'}: a key sent again (in its batch or an earlier one) keeps its last values, counted once; no value left from the record before`, async () => {
      const batchings = [...Array.from({ length: records.length + 1 }, (_, at) => [records.slice(0, at), records.slice(at)]), records.map((r) => [r])];
      for (const [i, batches] of batchings.entries()) {
        const result = await runPg(load, async (target, rows, table) => {
          const changes = new PageChanges(target, table, rows);
          for (const batch of batches) await changes.addRecords(batch);
          return changes.end();
        });
        expect(result, `batching ${i}`).toEqual({
          counts: { upserted: 5, deleted: 0 },
          rows: [{ K: '1', V: 'one again' }, { K: '2', V: 'two last' }, { K: '3', V: 'three' }, { K: '5', V: 'five again' }, { K: '6', V: null }, { K: '7', V: null }],
        });
      }
    }, 60_000);
  }
});
