// syncEntitySet into SQLite against the testkit OData server's change tracking (v4 delta links, pages of two).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type EmptyMap } from '@sluice/odata';
import { SinkError, syncEntitySet } from '../src/index.js';
import { openSqlite } from '../src/sync/sqlite.js';
import { createOrders, ORDERS_SQL, serviceOrders, tableOrders, useOrders } from './sync-helpers.js';

const kit = useOrders();
let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'sluice-sync-sqlite-')); });
afterAll(() => rm(dir, { recursive: true, force: true }));

function read(path: string, sql: string): Record<string, unknown>[] {
  const db = openSqlite(path);
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

describe('syncEntitySet into SQLite', () => {
  it('loads everything first, then applies inserts, updates and deletes; the table equals the service after each run', async () => {
    const od = kit.client();
    const ids = await createOrders(od, 5, 'first');
    const path = join(dir, 'orders.db');
    const into = `sqlite:${path}`;
    const first = await syncEntitySet({ od, entitySet: 'Orders', into });
    expect(first).toMatchObject({ run: 'load', mode: 'delta', upserted: kit.server().writes!.store.orders.size, deleted: 0 });
    expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));

    const columns = read(path, 'PRAGMA table_info(Orders)').map((c) => `${String(c['name'])} ${String(c['type'])}${Number(c['pk']) ? ' pk' : ''}${Number(c['notnull']) ? ' not null' : ''}`);
    expect(columns).toEqual([
      'ID INTEGER pk not null', 'Customer TEXT not null', 'Amount TEXT not null', 'Quantity INTEGER not null', 'Status TEXT not null',
      'DeliveryDate TEXT', 'Attachment BLOB', 'ModifiedAt TEXT not null',
    ]);
    // Int64 above 2^53 kept exactly (read as text by SQLite itself), a date-time normalized to UTC.
    const [row] = read(path, `SELECT CAST(Quantity AS TEXT) AS q, DeliveryDate AS d, Amount AS a FROM Orders WHERE ID = ${ids[1]}`);
    expect(row).toEqual({ q: '9007199254740994', d: '2024-02-15T08:30:00.25Z', a: '1001.01' });

    await od.from('Orders').key(ids[0]!).update({ Status: 'Open', Amount: '1.23' }, { etag: '*' });
    await od.from('Orders').key(ids[1]!).delete({ etag: '*' });
    await od.from('Orders').key(ids[2]!).delete({ etag: '*' });
    const [added] = await createOrders(od, 1, 'second');
    await od.from('Orders').key(added!).update({ Status: 'Shipped' }, { etag: '*' });
    const second = await syncEntitySet({ od, entitySet: 'Orders', into });
    expect(second).toMatchObject({ run: 'delta', upserted: 2, deleted: 2, pages: 2 });
    expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));

    const third = await syncEntitySet({ od, entitySet: 'Orders', into });
    expect(third).toMatchObject({ run: 'delta', upserted: 0, deleted: 0, pages: 1 });
    const [state] = read(path, "SELECT mode, phase, load_table, resume_link, runs FROM sluice_sync WHERE table_name = 'Orders'");
    expect(state).toMatchObject({ mode: 'delta', phase: 'tracking', load_table: null, runs: 3 });
    expect(String(state!['resume_link'])).toMatch(/\$deltatoken=\d+$/);
  });

  it('takes a client typed by its service and a typed query as they are', async () => {
    interface OrderSpec {
      props: { ID: number; Customer: string; Amount: string; Quantity: string; Status: string }; key: { ID: number };
      edm: { ID: 'Edm.Int32'; Customer: 'Edm.String'; Amount: 'Edm.Decimal'; Quantity: 'Edm.Int64'; Status: 'Edm.String' }; nav: EmptyMap;
      computed: never; immutable: 'ID'; actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap;
    }
    interface Shop { entitySets: { Orders: OrderSpec }; singletons: EmptyMap; actions: EmptyMap; functions: EmptyMap }
    const typed = createODataClient<Shop>({ serviceURL: kit.server().v4, version: '4.0', http: { retry: false } });
    try {
      await createOrders(kit.client(), 2, 'typed');
      const path = join(dir, 'typed.db');
      const result = await syncEntitySet({ od: typed, entitySet: 'Orders', query: typed.from('Orders').select('ID', 'Customer'), table: 'TypedOrders', into: `sqlite:${path}` });
      expect(result).toMatchObject({ run: 'load', upserted: kit.server().writes!.store.orders.size });
      const rows = read(path, 'SELECT ID, Customer FROM TypedOrders ORDER BY ID');
      expect(rows).toEqual((await typed.from('Orders').select('ID', 'Customer').orderBy('ID').list()).map((o) => ({ ID: o.ID, Customer: o.Customer })));
    } finally {
      await typed.close();
    }
  });

  it('OData v2 (SAP Gateway __delta): load, then changes; the table equals the service', async () => {
    const od = kit.client();
    const v2 = createODataClient({ serviceURL: kit.server().v2, version: '2.0', http: { retry: false } });
    try {
      const path = join(dir, 'v2.db');
      const ids = await createOrders(od, 3, 'v2');
      await expect(syncEntitySet({ od: v2, entitySet: 'Orders', into: `sqlite:${path}` })).resolves.toMatchObject({ run: 'load', mode: 'delta' });
      expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));
      await od.from('Orders').key(ids[0]!).update({ Status: 'V2' }, { etag: '*' });
      await od.from('Orders').key(ids[1]!).delete({ etag: '*' });
      await expect(syncEntitySet({ od: v2, entitySet: 'Orders', into: `sqlite:${path}` })).resolves.toMatchObject({ run: 'delta', upserted: 1, deleted: 1 });
      expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));
    } finally {
      await v2.close();
    }
  });

  it('a set without change tracking is loaded as a snapshot (with a notice) and reloaded each run', async () => {
    const od = kit.client();
    const path = join(dir, 'products.db');
    const notices: string[] = [];
    const first = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, onNotice: (m) => notices.push(m) });
    expect(first).toMatchObject({ run: 'load', mode: 'snapshot', upserted: 1 });
    expect(notices).toEqual([expect.stringMatching(/does not track changes of Products: it was loaded as a snapshot, and each run reloads it/)]);
    const again = await syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}` });
    expect(again).toMatchObject({ run: 'snapshot', mode: 'snapshot', upserted: 1 });
    const products = await od.from<Record<string, unknown>>('Products').list();
    const [row] = read(path, 'SELECT ID, Name, Price, CAST(Stock AS TEXT) AS Stock, Guid FROM Products');
    expect(row).toEqual({ ID: products[0]!['ID'], Name: products[0]!['Name'], Price: products[0]!['Price'], Stock: String(products[0]!['Stock']), Guid: String(products[0]!['Guid']).toLowerCase() });
    await expect(syncEntitySet({ od, entitySet: 'Products', into: `sqlite:${path}`, mode: 'delta', table: 'P2' }))
      .rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === 'mode' && /does not track changes of Products .*--mode snapshot/.test(e.message));
    expect(read(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'P2%'")).toEqual([]);
  });

  it('a refused delta link (410) reloads into a new table that replaces the old one', async () => {
    const od = kit.client();
    const path = join(dir, 'expired.db');
    await syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` });
    const ids = await createOrders(od, 2, 'expired');
    await od.from('Orders').key(ids[0]!).delete({ etag: '*' });
    const w = kit.server().writes!.store;
    w.expiredBefore = w.seq + 1;
    const notices: string[] = [];
    try {
      const result = await syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}`, onNotice: (m) => notices.push(m) });
      expect(result).toMatchObject({ run: 'reload', mode: 'delta', upserted: w.orders.size, deleted: 0 });
    } finally {
      w.expiredBefore = 0;
    }
    expect(notices).toEqual([expect.stringMatching(/refused the kept delta link \(HTTP 410\): reloading Orders into a new table/)]);
    expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));
    expect(read(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => r['name'])).toEqual(['Orders', 'sluice_sync']);
  });

  it('refuses before any row moves: unknown scheme, a key left out of select, a table of another shape, a select name the type lacks', async () => {
    const od = kit.client();
    const path = join(dir, 'bad.db');
    const refused = (p: Promise<unknown>, code: string, message: RegExp): Promise<void> =>
      expect(p).rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === code && message.test(e.message));
    await refused(syncEntitySet({ od, entitySet: 'Orders', into: 'mysql://h/db' }), 'target', /unknown target scheme mysql:/);
    await refused(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}`, select: ['Customer', 'Amount'] }), 'select', /--select leaves out the key ID of Orders/);
    await refused(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}`, select: ['ID', 'Nope'] }), 'select', /"Nope", which is no property/);
    const db = openSqlite(path);
    db.exec('CREATE TABLE Orders (ID INTEGER PRIMARY KEY, Customer TEXT)');
    db.exec("INSERT INTO Orders VALUES (1, 'kept')");
    db.close();
    await refused(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` }), 'shape', /table Orders exists in sqlite:.* with another shape .*it lacks Amount text/);
    expect(read(path, 'SELECT * FROM Orders')).toEqual([{ ID: 1, Customer: 'kept' }]);
    // --rebuild replaces it
    const rebuilt = await syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}`, rebuild: true });
    expect(rebuilt.run).toBe('load');
    expect(tableOrders(read(path, ORDERS_SQL))).toEqual(await serviceOrders(od));
  });

  it('schema drift: a column the select now leaves out is an error naming it; a new selected property becomes a column filled for every row', async () => {
    const od = kit.client();
    const path = join(dir, 'drift.db');
    const into = `sqlite:${path}`;
    await createOrders(od, 3, 'drift');
    await syncEntitySet({ od, entitySet: 'Orders', into, select: ['ID', 'Customer'] });
    // One order changes, the others do not: every row must get its Status, not only the changed one.
    const [changed] = [...kit.server().writes!.store.orders.keys()];
    await od.from('Orders').key(changed!).update({ Status: 'Shipped' }, { etag: '*' });
    const notices: string[] = [];
    const wider = await syncEntitySet({ od, entitySet: 'Orders', into, select: ['ID', 'Customer', 'Status'], onNotice: (m) => notices.push(m) });
    expect(wider).toMatchObject({ run: 'reload', mode: 'delta', upserted: kit.server().writes!.store.orders.size });
    expect(notices).toEqual([expect.stringMatching(/new property Status of Orders: reloading Orders into a new table with this column, which replaces Orders when complete/)]);
    expect(read(path, 'PRAGMA table_info(Orders)').map((c) => c['name'])).toEqual(['ID', 'Customer', 'Status']);
    const service = (await serviceOrders(od)).map((o) => ({ ID: o.ID, Customer: o.Customer, Status: o.Status }));
    expect(read(path, 'SELECT ID, Customer, Status FROM Orders ORDER BY ID')).toEqual(service);
    expect(service.filter((o) => o.Status !== 'Shipped').length).toBeGreaterThan(0);
    expect(await syncEntitySet({ od, entitySet: 'Orders', into, select: ['ID', 'Customer', 'Status'] })).toMatchObject({ run: 'delta', upserted: 0 });
    await expect(syncEntitySet({ od, entitySet: 'Orders', into, select: ['ID', 'Status'] })).rejects.toThrow(/table Orders has column Customer, which --select now leaves out/);
    // another $filter: the rows would no longer match the query
    const filtered = od.from('Orders').filter('ID gt 1').select('ID', 'Customer', 'Status');
    await expect(syncEntitySet({ od, entitySet: 'Orders', into, query: filtered, select: ['ID', 'Customer', 'Status'] }))
      .rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === 'drift' && /the query of table Orders changed since it was synced \(from .*\/Orders to .*\$filter=ID%20gt%201/.test(e.message));
  });

  it("holds SQLite's page cache at SQLite's own 2,000 KiB with either driver (better-sqlite3 is built with 16,000)", async () => {
    const { openSqliteTarget } = await import('../src/sync/sqlite.js');
    const target = openSqliteTarget(join(dir, 'cache.db'));
    try {
      expect(await target.query('PRAGMA cache_size')).toEqual([{ cache_size: -2000 }]);
    } finally {
      await target.close();
    }
  });

  it('two syncs of one table at once: the second is refused, the first completes', async () => {
    const od = kit.client();
    const path = join(dir, 'locked.db');
    const { openSqliteTarget } = await import('../src/sync/sqlite.js');
    const holder = openSqliteTarget(path);
    await holder.lock('Orders');
    try {
      await expect(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` })).rejects.toSatisfy((e: unknown) => e instanceof SinkError && e.code === 'locked');
      // another table of the same file is not held
      await expect(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}`, table: 'Orders2' })).resolves.toMatchObject({ run: 'load' });
    } finally {
      await holder.close();
    }
    await expect(syncEntitySet({ od, entitySet: 'Orders', into: `sqlite:${path}` })).resolves.toMatchObject({ run: 'load' });
  });
});
