// Rows a real SQLite file refuses for reasons of its own, which the sink's value checks cannot foresee: a CHECK, a
// NOT NULL or a UNIQUE index the user gave a synced table, a trigger's RAISE, a foreign key of another table refusing
// a removal, in delta runs (upserts and removals), a first load and a snapshot. Each is a SinkError naming the table,
// the column or the constraint, SQLite's result code (the same whichever driver this Node uses), the entity set and
// the refused record's key (the driver's error as `cause`), never the service's credentials; the page is rolled
// back, the run state kept, and the rerun applies the page once the table allows it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SinkError, syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { useItemsService } from './items-service.js';
import { sqliteRows } from './sync-helpers.js';

// A user and password for the service (which ignores them; a service URL may not carry them): no message may show them.
const CREDENTIALS = Buffer.from('sync-user:s3cret-pw').toString('base64');
const service = useItemsService({ authorization: `Basic ${CREDENTIALS}` });
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-sqlite-refused-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs statements on the file on a connection of the test's own (waiting for the sync's transaction, if one is open). */
function sqlite(path: string, ...statements: string[]): void {
  const db = openSqlite(path);
  try {
    db.exec('PRAGMA busy_timeout = 10000');
    for (const s of statements) db.exec(s);
  } finally {
    db.close();
  }
}

/**
 * The run's error, checked to be a SinkError of `expected` without the service's user or password, SQLite's error as
 * cause, its message in the SinkError's and its code named there (better-sqlite3 names it, node:sqlite numbers it).
 */
async function refusedRun(path: string, table: string, expected: { code: 'value' | 'target'; message: string }, mode?: 'snapshot'): Promise<SinkError> {
  const error = await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table, mode }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(SinkError);
  const refused = error as SinkError;
  expect(refused).toMatchObject(expected);
  expect(refused.message).not.toMatch(new RegExp(`s3cret-pw|sync-user|${CREDENTIALS}`));
  const cause = refused.cause as { message: string; code?: unknown; errcode?: unknown };
  expect(refused.message).toContain(`: ${cause.message} (`);
  expect(cause.code === 'ERR_SQLITE_ERROR' ? typeof cause.errcode : refused.message).toEqual(cause.code === 'ERR_SQLITE_ERROR' ? 'number' : expect.stringContaining(`(${String(cause.code)})`));
  return refused;
}

/** A check that the rows of `table` (a query) and every table's sync state are as they are now. */
function keeps(path: string, table: string): () => void {
  const rows = sqliteRows(path, table);
  const state = sqliteRows(path, 'SELECT * FROM sluice_sync');
  return () => {
    expect(sqliteRows(path, table)).toEqual(rows);
    expect(sqliteRows(path, 'SELECT * FROM sluice_sync')).toEqual(state);
  };
}

/** Gives `table` another definition (SQLite's way to add a constraint): the same columns and rows, then `extra`. */
const redefine = (table: string, columns: string): string[] => [
  `CREATE TABLE "${table}_new" (${columns}) STRICT`, `INSERT INTO "${table}_new" SELECT * FROM "${table}"`, `DROP TABLE "${table}"`, `ALTER TABLE "${table}_new" RENAME TO "${table}"`,
];

describe('sync into SQLite: rows SQLite itself refuses', () => {
  it('a CHECK, a NOT NULL and a UNIQUE index the user gave the table refuse a delta page record: named, nothing of the page applied, rerun applies it', async () => {
    const path = join(dir, 'checked.db');
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }]];
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'checked' })).toMatchObject({ run: 'load', upserted: 2 });
    sqlite(path, ...redefine('checked', 'ID INTEGER NOT NULL, Name TEXT NOT NULL, Qty INTEGER, CONSTRAINT checked_qty_small CHECK (Qty < 100), PRIMARY KEY (ID)'),
      'CREATE UNIQUE INDEX checked_name_once ON checked (Name)');
    const table = 'SELECT ID, Name, Qty FROM checked ORDER BY ID';
    const unchanged = keeps(path, table);

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 3, Name: 'c', Qty: 500 }, { ID: 4, Name: 'd', Qty: 4 }];
    await refusedRun(path, 'checked', { code: 'value', message: 'SQLite refused a row of table checked (constraint checked_qty_small): CHECK constraint failed: checked_qty_small (SQLITE_CONSTRAINT_CHECK) (entity set Items, the record with key ID=3)' });
    unchanged();

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 4, Name: 'd', Qty: 4 }, { ID: 5, Name: 'b', Qty: 5 }];
    await refusedRun(path, 'checked', { code: 'value', message: 'SQLite refused a row of table checked (column Name (Edm.String)): UNIQUE constraint failed: checked.Name (SQLITE_CONSTRAINT_UNIQUE) (entity set Items, the record with key ID=5)' });
    unchanged();

    service.delta = [{ ID: 6, Name: null, Qty: 6 }];
    await refusedRun(path, 'checked', { code: 'value', message: 'SQLite refused a row of table checked (column Name (Edm.String)): NOT NULL constraint failed: checked.Name (SQLITE_CONSTRAINT_NOTNULL) (entity set Items, the record with key ID=6)' });
    unchanged();

    sqlite(path, 'DROP INDEX checked_name_once');
    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 4, Name: 'd', Qty: 4 }, { ID: 5, Name: 'b', Qty: 5 }];
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'checked' })).toMatchObject({ run: 'delta', upserted: 3 });
    expect(sqliteRows(path, table)).toEqual([{ ID: 1, Name: 'a', Qty: 7 }, { ID: 2, Name: 'b', Qty: 2 }, { ID: 4, Name: 'd', Qty: 4 }, { ID: 5, Name: 'b', Qty: 5 }]);
  }, 120_000);

  it('a trigger\'s RAISE(ABORT), a foreign key refusing a removal, and a trigger failing for no reason of the row: named; nothing applied', async () => {
    const path = join(dir, 'guarded.db');
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }]];
    await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'guarded' });
    sqlite(path,
      `CREATE TRIGGER guarded_names BEFORE INSERT ON guarded WHEN NEW.Name = 'bad' BEGIN SELECT RAISE(ABORT, 'no bad names here'); END`,
      `CREATE TRIGGER guarded_broken BEFORE UPDATE ON guarded WHEN NEW.Name = 'broken' BEGIN SELECT json('{'); END`,
      'CREATE TABLE guarded_child (ref INTEGER REFERENCES guarded (ID))',
      'INSERT INTO guarded_child VALUES (2)');
    const table = 'SELECT ID, Name, Qty FROM guarded ORDER BY ID';
    const unchanged = keeps(path, table);

    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { ID: 3, Name: 'c', Qty: 3 }, { ID: 4, Name: 'bad', Qty: 4 }];
    await refusedRun(path, 'guarded', { code: 'value', message: 'SQLite refused a row of table guarded: no bad names here (SQLITE_CONSTRAINT_TRIGGER) (entity set Items, the record with key ID=4)' });
    unchanged();

    // Both drivers enforce foreign keys unless told otherwise.
    service.delta = [{ ID: 1, Name: 'a', Qty: 7 }, { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(1)', reason: 'deleted' },
      { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(2)', reason: 'deleted' }];
    await refusedRun(path, 'guarded', { code: 'value', message: 'SQLite refused a row of table guarded: FOREIGN KEY constraint failed (SQLITE_CONSTRAINT_FOREIGNKEY) (entity set Items, the removal of key ID=2)' });
    unchanged();

    // Not about the row's values (the trigger's own SQL fails): a `target` error, still naming the row written.
    service.delta = [{ ID: 3, Name: 'c', Qty: 3 }, { ID: 2, Name: 'broken', Qty: 5 }];
    await refusedRun(path, 'guarded', { code: 'target', message: 'SQLite refused a row of table guarded: malformed JSON (SQLITE_ERROR) (entity set Items, the record with key ID=2)' });
    unchanged();

    // A trigger naming a missing table: SQLite cannot prepare any write into the table, whatever the row.
    sqlite(path, `CREATE TRIGGER guarded_missing BEFORE INSERT ON guarded BEGIN INSERT INTO guarded_nowhere VALUES (1); END`);
    service.delta = [{ ID: 3, Name: 'c', Qty: 3 }];
    await refusedRun(path, 'guarded', { code: 'target', message: 'SQLite refused the writes into table guarded: no such table: main.guarded_nowhere (SQLITE_ERROR) (entity set Items)' });
    unchanged();

    sqlite(path, 'DROP TRIGGER guarded_names', 'DROP TRIGGER guarded_broken', 'DROP TRIGGER guarded_missing', 'DELETE FROM guarded_child');
    service.delta = [{ ID: 4, Name: 'bad', Qty: 4 }, { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(2)', reason: 'deleted' }];
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'guarded' })).toMatchObject({ run: 'delta', upserted: 1, deleted: 1 });
    expect(sqliteRows(path, table)).toEqual([{ ID: 1, Name: 'a', Qty: 1 }, { ID: 4, Name: 'bad', Qty: 4 }]);
  }, 120_000);

  it('a first load: a trigger on the staging table between pages refuses a record of page 2; page 1 and its resume link kept, the rerun resumes', async () => {
    const path = join(dir, 'staged.db');
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }], [{ ID: 3, Name: 'c', Qty: 3 }, { ID: 4, Name: 'bad', Qty: 4 }]];
    service.beforePage = (page) => {
      if (page === 1) sqlite(path, `CREATE TRIGGER staged_names BEFORE INSERT ON staged__sluice_load WHEN NEW.Name = 'bad' BEGIN SELECT RAISE(FAIL, 'no bad names in a load'); END`);
    };
    try {
      const refused = { code: 'value', message: 'SQLite refused a row of table staged__sluice_load: no bad names in a load (SQLITE_CONSTRAINT_TRIGGER) (entity set Items, the record with key ID=4)' } as const;
      await refusedRun(path, 'staged', refused);
      const loading = (): unknown => ({
        rows: sqliteRows(path, 'SELECT ID FROM staged__sluice_load ORDER BY ID'),
        state: sqliteRows(path, `SELECT phase, resume_link, run_upserted FROM sluice_sync WHERE table_name = 'staged'`),
      });
      const after = { rows: [{ ID: 1 }, { ID: 2 }], state: [{ phase: 'loading', resume_link: expect.stringContaining('$skiptoken=1'), run_upserted: 2 }] };
      expect(loading()).toEqual(after);
      expect(sqliteRows(path, "SELECT name FROM sqlite_master WHERE name = 'staged'")).toEqual([]);

      service.beforePage = undefined;
      await refusedRun(path, 'staged', refused);
      expect(loading()).toEqual(after);

      sqlite(path, 'DROP TRIGGER staged_names');
      expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'staged' })).toMatchObject({ run: 'load', upserted: 2 });
      expect(sqliteRows(path, 'SELECT ID, Name FROM staged ORDER BY ID')).toEqual([{ ID: 1, Name: 'a' }, { ID: 2, Name: 'b' }, { ID: 3, Name: 'c' }, { ID: 4, Name: 'bad' }]);
    } finally {
      service.beforePage = undefined;
    }
  }, 120_000);

  it('a snapshot: a trigger\'s RAISE(ROLLBACK) on the staging table refuses a record of page 2; the table and its state as before, the rerun replaces it', async () => {
    const path = join(dir, 'snap.db');
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }]];
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'snap', mode: 'snapshot' })).toMatchObject({ run: 'snapshot', upserted: 1 });
    const table = 'SELECT ID, Name, Qty FROM snap ORDER BY ID';
    const before = sqliteRows(path, table);
    const stateSQL = `SELECT mode, resume_link, upserted, runs FROM sluice_sync WHERE table_name = 'snap'`;
    const state = sqliteRows(path, stateSQL);
    service.pages = [[{ ID: 1, Name: 'a', Qty: 1 }, { ID: 2, Name: 'b', Qty: 2 }], [{ ID: 3, Name: 'c', Qty: 3 }, { ID: 4, Name: 'bad', Qty: 4 }, { ID: 5, Name: 'e', Qty: 5 }]];
    service.beforePage = (page) => {
      if (page === 1) sqlite(path, `CREATE TRIGGER snap_names BEFORE INSERT ON snap__sluice_load WHEN NEW.Name = 'bad' BEGIN SELECT RAISE(ROLLBACK, 'no bad names in a snapshot'); END`);
    };
    try {
      await refusedRun(path, 'snap', { code: 'value', message: 'SQLite refused a row of table snap__sluice_load: no bad names in a snapshot (SQLITE_CONSTRAINT_TRIGGER) (entity set Items, the record with key ID=4)' }, 'snapshot');
      expect(sqliteRows(path, table)).toEqual(before);
      // The totals, the runs and the (absent) resume link as before; the phase says a snapshot had begun (set before any row).
      expect(sqliteRows(path, stateSQL)).toEqual(state);
      expect(sqliteRows(path, `SELECT phase, run_upserted FROM sluice_sync WHERE table_name = 'snap'`)).toEqual([{ phase: 'loading', run_upserted: 2 }]);
      // The rolled-back page wrote nothing into the staging table (ID 3, before the refused one, neither).
      expect(sqliteRows(path, 'SELECT ID FROM snap__sluice_load ORDER BY ID')).toEqual([{ ID: 1 }, { ID: 2 }]);
    } finally {
      service.beforePage = undefined;
    }
    // The rerun's fresh staging table has no trigger.
    expect(await syncEntitySet({ od: service.od(), entitySet: 'Items', into: `sqlite:${path}`, table: 'snap', mode: 'snapshot' })).toMatchObject({ run: 'snapshot', upserted: 5 });
    expect(sqliteRows(path, table).map((r) => r['ID'])).toEqual([1, 2, 3, 4, 5]);
  }, 120_000);
});
