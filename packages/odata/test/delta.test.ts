import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import { DeltaExpiredError, DeltaSync, FileDeltaStore, type DeltaChange } from '../src/index.js';

interface Order { ID: number; Customer: string; Status: string }

const kit = useWriteServer();
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-delta-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function collect(sync: DeltaSync<Order>): Promise<DeltaChange<Order>[]> {
  const out: DeltaChange<Order>[] = [];
  for await (const c of sync.changes()) out.push(c);
  return out;
}

describe('DeltaSync, OData v4', () => {
  it('reads everything first, then only changes and removals across pages, resuming from the file store', async () => {
    const od = kit.client('4.0');
    const orders = od.from<Order>('Orders');
    const ids: number[] = [];
    for (const c of ['A', 'B', 'C']) ids.push((await orders.create({ Customer: c })).value!.ID);
    const file = join(dir, 'links.json');
    const first = await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }));
    expect(first.filter((c) => c.kind === 'entity').map((c) => (c as { value: Order }).value.Customer)).toEqual(expect.arrayContaining(['A', 'B', 'C']));
    expect(kit.server().requests.at(-1)!.headers['prefer']).toBe('odata.track-changes');
    expect(JSON.parse(await readFile(file, 'utf8'))['orders']).toMatch(/\$deltatoken=\d+$/);

    await orders.key(ids[0]!).update({ Status: 'Open' }, { etag: '*' });
    await orders.key(ids[1]!).delete({ etag: '*' });
    await orders.create({ Customer: 'D' });
    // a new DeltaSync over the same file: as after a restart
    const before = kit.server().requests.length;
    const second = await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }));
    expect(kit.server().requests.length - before).toBe(2); // three changes in pages of two
    expect(second).toHaveLength(3);
    expect(second[0]).toMatchObject({ kind: 'entity', value: { ID: ids[0], Status: 'Open' } });
    expect(second[1]).toMatchObject({ kind: 'removed', reason: 'deleted' });
    expect((second[1] as { id: string }).id).toMatch(new RegExp(`Orders\\(${ids[1]}\\)$`));
    expect(second[2]).toMatchObject({ kind: 'entity', value: { Customer: 'D' } });
    // nothing changed since
    expect(await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }))).toEqual([]);
  });

  it('reads 4.01 removals (@removed, @id)', async () => {
    const od = kit.client('4.0', { http: { retry: false, headers: { 'odata-maxversion': '4.01' } } });
    const orders = od.from<Order>('Orders');
    const store = new FileDeltaStore(join(dir, 'v401.json'));
    const sync = new DeltaSync(od, orders, { store });
    await collect(sync);
    const id = (await orders.create({ Customer: 'E' })).value!.ID;
    await orders.key(id).delete({ etag: '*' });
    const changes = await collect(sync);
    expect(changes.at(-1)).toMatchObject({ kind: 'removed', reason: 'deleted' });
  });

});

describe('DeltaSync, OData v2 (SAP Gateway __delta)', () => {
  it('reads everything first, keeps d.__delta, then only changes and removals across pages, resuming from the file store', async () => {
    const od = kit.client('2.0');
    const orders = od.from<Order>('Orders');
    const ids: number[] = [];
    for (const c of ['V2A', 'V2B']) ids.push((await orders.create({ Customer: c })).value!.ID);
    const file = join(dir, 'v2-links.json');
    const first = await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }));
    expect(first.every((c) => c.kind === 'entity')).toBe(true);
    expect(first.map((c) => (c as { value: Order }).value.Customer)).toEqual(expect.arrayContaining(['V2A', 'V2B']));
    expect(first[0]).not.toHaveProperty('value.__metadata');
    expect(JSON.parse(await readFile(file, 'utf8'))['orders']).toMatch(/Orders\?!deltatoken='\d+'$/);

    await orders.key(ids[0]!).update({ Status: 'Shipped' }, { etag: '*' });
    await orders.key(ids[1]!).delete({ etag: '*' });
    await orders.create({ Customer: 'V2C' });
    const before = kit.server().requests.length;
    const second = await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }));
    expect(kit.server().requests.length - before).toBe(2); // three changes in pages of two, d.__next between
    expect(second).toHaveLength(3);
    expect(second[0]).toMatchObject({ kind: 'entity', value: { ID: ids[0], Status: 'Shipped' } });
    expect(second[1]).toMatchObject({ kind: 'removed', reason: 'deleted' });
    expect((second[1] as { id: string }).id).toMatch(new RegExp(`Orders\\(${ids[1]}\\)$`));
    expect(second[2]).toMatchObject({ kind: 'entity', value: { Customer: 'V2C' } });
    expect(await collect(new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'orders' }))).toEqual([]);
  });
});

describe('DeltaSync, an expired delta link', () => {
  it.each(['4.0', '2.0'] as const)('OData %s: gives DeltaExpiredError for a refused link, then falls back to a full read', async (version) => {
    const od = kit.client(version);
    const orders = od.from<Order>('Orders');
    const store = new FileDeltaStore(join(dir, `expired-${version}.json`));
    const sync = new DeltaSync(od, orders, { store, key: 'o' });
    await collect(sync);
    const w = kit.server().writes!.store;
    w.expiredBefore = w.seq + 1;
    await expect(collect(sync)).rejects.toBeInstanceOf(DeltaExpiredError);
    expect(await store.load('o')).toBeUndefined();
    w.expiredBefore = 0;
    const full = await collect(sync);
    expect(full.length).toBe(w.orders.size);
    expect(await store.load('o')).toBeDefined();
  });
});
