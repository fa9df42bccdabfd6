// syncEntitySet into a real PostgreSQL (initdb + postgres in a temporary folder, as `nobody` when root)
// against the testkit OData server's change tracking.
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openTarget, SinkError, syncEntitySet } from '../src/index.js';
import { createOrders, serviceOrders, tableOrders, useOrders } from './sync-helpers.js';
import { usePostgres } from './postgres.js';

const kit = useOrders();
const postgres = usePostgres();

/** A port nothing listens on: taken from the system and closed again (port + 1 may belong to another test's server). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((resolve) => s.close(resolve));
  return port;
}

async function rows(table: string): Promise<Record<string, unknown>[]> {
  return (await postgres().client.query(`SELECT "ID", "Customer", "Amount"::text AS "Amount", "Quantity"::text AS "Quantity", "Status", "DeliveryDate", "Attachment" FROM "${table}"`)).rows;
}

describe('syncEntitySet into PostgreSQL', () => {
  it('creates the table with exact types, loads, then applies inserts, updates and deletes; the table equals the service', async () => {
    const od = kit.client();
    const ids = await createOrders(od, 5, 'pg');
    const first = await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'orders' });
    expect(first).toMatchObject({ run: 'load', mode: 'delta', upserted: kit.server().writes!.store.orders.size, target: expect.stringMatching(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/) });
    expect(tableOrders(await rows('orders'))).toEqual(await serviceOrders(od));
    const types = (await postgres().client.query(`SELECT column_name, format_type(atttypid, atttypmod) AS type, attnotnull FROM information_schema.columns c
      JOIN pg_attribute a ON a.attrelid = '"orders"'::regclass AND a.attname = c.column_name WHERE c.table_name = 'orders' ORDER BY ordinal_position`)).rows;
    expect(types.map((t) => `${String(t['column_name'])} ${String(t['type'])}${t['attnotnull'] ? ' not null' : ''}`)).toEqual([
      'ID integer not null', 'Customer text not null', 'Amount numeric(12,2) not null', 'Quantity bigint not null', 'Status text not null',
      'DeliveryDate timestamp(6) with time zone', 'Attachment bytea', 'ModifiedAt timestamp(6) with time zone not null',
    ]);
    const key = await postgres().client.query(`SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = '"orders"'::regclass AND i.indisprimary`);
    expect(key.rows.map((r) => r['attname'])).toEqual(['ID']);
    const [exact] = (await postgres().client.query(`SELECT "Quantity"::text AS q, "DeliveryDate" AS d FROM orders WHERE "ID" = $1`, [ids[1]])).rows;
    expect(exact).toEqual({ q: '9007199254740994', d: new Date('2024-02-15T08:30:00.250Z') });

    await od.from('Orders').key(ids[0]!).update({ Status: 'Open', Amount: '7.05' }, { etag: '*' });
    await od.from('Orders').key(ids[1]!).delete({ etag: '*' });
    await createOrders(od, 2, 'pg2');
    const second = await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'orders' });
    expect(second).toMatchObject({ run: 'delta', upserted: 3, deleted: 1 });
    expect(tableOrders(await rows('orders'))).toEqual(await serviceOrders(od));
    const state = (await postgres().client.query(`SELECT mode, phase, resume_link, runs FROM sluice_sync WHERE table_name = 'orders'`)).rows[0];
    expect(state).toMatchObject({ mode: 'delta', phase: 'tracking', runs: '2' });
  });

  it('a refused delta link (410) reloads into a new table swapped in; the primary key keeps its name', async () => {
    const od = kit.client();
    await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'reloaded' });
    const [gone] = await createOrders(od, 2, 'reload');
    await od.from('Orders').key(gone!).delete({ etag: '*' });
    const w = kit.server().writes!.store;
    w.expiredBefore = w.seq + 1;
    try {
      await expect(syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'reloaded' })).resolves.toMatchObject({ run: 'reload' });
    } finally {
      w.expiredBefore = 0;
    }
    expect(tableOrders(await rows('reloaded'))).toEqual(await serviceOrders(od));
    const constraint = await postgres().client.query(`SELECT conname FROM pg_constraint WHERE conrelid = '"reloaded"'::regclass AND contype = 'p'`);
    expect(constraint.rows).toEqual([{ conname: 'reloaded_pkey' }]);
    // and once more: the staging table's key name is free again
    w.expiredBefore = w.seq + 1;
    try {
      await expect(syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'reloaded' })).resolves.toMatchObject({ run: 'reload' });
    } finally {
      w.expiredBefore = 0;
    }
  });

  it('a property newly selected: the table is reloaded with the column (every row has its value), then delta runs go on', async () => {
    const od = kit.client();
    await createOrders(od, 2, 'wider');
    await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'wider', select: ['ID', 'Customer'] });
    const wider = await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'wider', select: ['ID', 'Customer', 'Status'] });
    expect(wider).toMatchObject({ run: 'reload', mode: 'delta' });
    const statuses = async (): Promise<unknown[]> => (await postgres().client.query('SELECT "ID", "Status" FROM wider ORDER BY "ID"')).rows;
    const service = (): Promise<unknown[]> => serviceOrders(od).then((all) => all.map((o) => ({ ID: o.ID, Status: o.Status })));
    expect(await statuses()).toEqual(await service());
    const [first] = [...kit.server().writes!.store.orders.keys()];
    await od.from('Orders').key(first!).update({ Status: 'Closed' }, { etag: '*' });
    expect(await syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'wider', select: ['ID', 'Customer', 'Status'] })).toMatchObject({ run: 'delta', upserted: 1 });
    expect(await statuses()).toEqual(await service());
  });

  it('two syncs of one table at once: the second is refused while the first holds the advisory lock', async () => {
    const od = kit.client();
    const holder = await openTarget(postgres().url);
    await holder.lock('locked');
    try {
      await expect(syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'locked' }))
        .rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === 'locked' && /another sluice sync of table locked/.test(e.message));
    } finally {
      await holder.close();
    }
    await expect(syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'locked' })).resolves.toMatchObject({ run: 'load' });
  });

  it('an unreachable database and a table of another shape are refused, the password never shown', async () => {
    const od = kit.client();
    const closed = `postgres://postgres:s3cret-pw@127.0.0.1:${await closedPort()}/postgres`;
    const error = await syncEntitySet({ od, entitySet: 'Orders', into: closed }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SinkError);
    expect((error as SinkError).code).toBe('unreachable');
    expect((error as SinkError).message).toMatch(/cannot connect to PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres: ECONNREFUSED/);
    expect((error as SinkError).message).not.toContain('s3cret');
    await postgres().client.query('CREATE TABLE other ("ID" integer PRIMARY KEY, "Note" text)');
    await expect(syncEntitySet({ od, entitySet: 'Orders', into: postgres().url, table: 'other' }))
      .rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === 'shape' && /table other exists .* with another shape/.test(e.message));
    expect((await postgres().client.query('SELECT count(*)::int AS n FROM other')).rows).toEqual([{ n: 0 }]);
  });
});
