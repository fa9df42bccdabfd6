// A target synced by an earlier sluice, whose `sluice_sync` table has no run counts (run_upserted, run_deleted):
// the next run adds the columns and goes on (delta), in SQLite and in PostgreSQL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { usePostgres } from './postgres.js';
import { createOrders, ORDERS_SQL, serviceOrders, sqliteRows, tableOrders, useOrders } from './sync-helpers.js';

const kit = useOrders();
const database = usePostgres();
let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'sluice-state-upgrade-')); });
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('a sluice_sync table without the run counts', () => {
  it('SQLite: the next run adds run_upserted and run_deleted and applies the delta', async () => {
    const od = kit.client();
    await createOrders(od, 3, 'sqlite-before');
    const path = join(dir, 'orders.db');
    expect(await syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` })).toMatchObject({ run: 'load' });
    const db = openSqlite(path);
    try {
      db.exec('ALTER TABLE sluice_sync DROP COLUMN run_upserted');
      db.exec('ALTER TABLE sluice_sync DROP COLUMN run_deleted');
    } finally {
      db.close();
    }
    await createOrders(od, 2, 'sqlite-after');
    expect(await syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` })).toMatchObject({ run: 'delta', upserted: 2 });
    expect(tableOrders(sqliteRows(path, ORDERS_SQL))).toEqual(await serviceOrders(od));
    expect(sqliteRows(path, 'SELECT run_upserted, run_deleted FROM sluice_sync')).toEqual([{ run_upserted: 2, run_deleted: 0 }]);
  });

  it('PostgreSQL: the same', async () => {
    const od = kit.client();
    const { url, client } = database();
    expect(await syncEntitySet({ od, entitySet: 'Orders', into: url, table: 'orders' })).toMatchObject({ run: 'load' });
    await client.query('ALTER TABLE sluice_sync DROP COLUMN run_upserted, DROP COLUMN run_deleted');
    await createOrders(od, 2, 'pg-after');
    expect(await syncEntitySet({ od, entitySet: 'Orders', into: url, table: 'orders' })).toMatchObject({ run: 'delta', upserted: 2 });
    const { rows } = await client.query('SELECT run_upserted::int AS up, run_deleted::int AS del FROM sluice_sync');
    expect(rows).toEqual([{ up: 2, del: 0 }]);
    const count = await client.query('SELECT count(*)::int AS n FROM orders');
    expect(count.rows[0].n).toBe((await serviceOrders(od)).length);
  });
});
