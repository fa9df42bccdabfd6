import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import { startServer } from '@sluice/testkit';
import { createODataClient, DeltaExpiredError, DeltaSync, FileDeltaStore, type DeltaChange, type DeltaPage } from '../src/index.js';

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

  /** The body the testkit server answered to the last delta read, fetched again as it was sent (a delta read changes nothing). */
  async function lastDeltaAnswer(): Promise<{ maxVersion: unknown; body: string }> {
    const sent = kit.server().requests.filter((r) => r.url.includes('deltatoken')).at(-1)!;
    const response = await fetch(new URL(sent.url, kit.server().v4), { headers: { 'odata-maxversion': String(sent.headers['odata-maxversion']) } });
    return { maxVersion: sent.headers['odata-maxversion'], body: await response.text() };
  }

  it.each([
    ['4.01 removals (@removed, @id) when the client asks for OData-MaxVersion 4.01', { 'odata-maxversion': '4.01' }, '4.01', '{"@removed":{"reason":"deleted"},"@id":'],
    ['4.0 removals (@odata.removed, @odata.id) by default', {}, '4.0', '{"@odata.removed":{"reason":"deleted"},"@odata.id":'],
  ] as const)('reads %s', async (_name, headers, maxVersion, form) => {
    const od = kit.client('4.0', { http: { retry: false, headers } });
    const orders = od.from<Order>('Orders');
    const store = new FileDeltaStore(join(dir, `removals-${maxVersion}.json`));
    const sync = new DeltaSync(od, orders, { store });
    await collect(sync);
    const id = (await orders.create({ Customer: 'E' })).value!.ID;
    await orders.key(id).delete({ etag: '*' });
    const changes = await collect(sync);
    expect(changes.at(-1)).toMatchObject({ kind: 'removed', reason: 'deleted' });
    expect((changes.at(-1) as { id: string }).id).toMatch(new RegExp(`Orders\\(${id}\\)$`));
    // The configured OData-MaxVersion reached the service, and the answer was in that version's form.
    const answer = await lastDeltaAnswer();
    expect(answer.maxVersion).toBe(maxVersion);
    expect(answer.body).toContain(form);
  });

  it('reads 4.01 removals named by key (no @id) across pages: key, and an id built from the set', async () => {
    const od = kit.client('4.0', { http: { retry: false, headers: { 'odata-maxversion': '4.01' } } });
    const orders = od.from<Order>('Orders');
    const store = new FileDeltaStore(join(dir, 'v401-keys.json'));
    const sync = new DeltaSync(od, orders, { store });
    await collect(sync);
    const ids: number[] = [];
    for (const c of ['K1', 'K2', 'K3']) ids.push((await orders.create({ Customer: c })).value!.ID);
    for (const id of ids) await orders.key(id).delete({ etag: '*' });
    kit.server().writes!.removalsByKey = true;
    try {
      const changes = await collect(sync);
      const removals = changes.filter((c) => c.kind === 'removed');
      expect(removals).toEqual(ids.map((id) => ({ kind: 'removed', id: `Orders(${id})`, key: { ID: id }, reason: 'deleted' })));
      expect(await collect(sync)).toEqual([]); // the delta link advanced past them
    } finally {
      kit.server().writes!.removalsByKey = false;
    }
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

describe('DeltaSync, the delta token in events', () => {
  it.each([['4.0', /Orders\?\$deltatoken=\d+$/], ['2.0', /Orders\?!deltatoken='\d+'$/]] as const)('OData %s: request events show the delta token a run resumed from (a cursor, not a secret)', async (version, shape) => {
    const urls: string[] = [];
    const od = kit.client(version, { http: { retry: false, onEvent: (e) => { if (e.type === 'request.start') urls.push(e.url); } } });
    const sync = new DeltaSync(od, od.from<Order>('Orders'), { store: new FileDeltaStore(join(dir, `events-${version}.json`)) });
    await collect(sync);
    urls.length = 0;
    await collect(sync);
    expect(urls).toHaveLength(1);
    expect(urls[0]).toMatch(shape);
  });
});

describe('DeltaSync links and deleted links (OData v4 testkit)', () => {
  it.each([['4.0', {}], ['4.01', { 'odata-maxversion': '4.01' }]] as const)('OData %s: a deep insert reports its Lines links, a delete removes them', async (_v, headers) => {
    const od = kit.client('4.0', { http: { retry: false, headers } });
    const orders = od.from<Order>('Orders');
    const sync = new DeltaSync(od, orders, { store: new FileDeltaStore(join(dir, `links-${_v}.json`)) });
    await collect(sync);
    const id = (await orders.create({ Customer: 'Linked', Lines: [{ Product: 'P1', Qty: 1 }, { Product: 'P2', Qty: 2 }] })).value!.ID;
    const added = await collect(sync);
    expect(added[0]).toMatchObject({ kind: 'entity', value: { ID: id } });
    const links = added.slice(1);
    expect(links).toHaveLength(2);
    for (const link of links) {
      expect(link).toMatchObject({ kind: 'link', relationship: 'Lines' });
      expect((link as { source: string }).source).toMatch(new RegExp(`Orders\\(${id}\\)$`));
      expect((link as { target: string }).target).toMatch(/OrderLines\(\d+\)$/);
    }
    await orders.key(id).delete({ etag: '*' });
    const removed = await collect(sync);
    expect(removed.map((c) => c.kind)).toEqual(['removed', 'deletedLink', 'deletedLink']);
    expect(removed.slice(1).map((c) => (c as { target: string }).target)).toEqual(links.map((c) => (c as { target: string }).target));
  });
});

describe('DeltaSync prefetch', () => {
  /** A delta service of three pages of two whose page 2 is answered only when `release` is called; `taken` is read when page 2 is asked for. */
  async function pagedService(taken: () => number) {
    let arrived!: (n: number) => void;
    const page2 = new Promise<number>((resolve) => { arrived = resolve; });
    const srv = await startServer((req, res) => {
      const page = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('$skiptoken') ?? 0);
      if (page === 1) arrived(taken());
      const next = page < 2 ? { '@odata.nextLink': `Orders?$skiptoken=${page + 1}` } : { '@odata.deltaLink': 'Orders?$deltatoken=9' };
      res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' }).end(JSON.stringify({
        '@odata.context': '$metadata#Orders/$delta', value: [{ ID: page * 2 + 1 }, { ID: page * 2 + 2 }], ...next,
      }));
    });
    return { srv, page2 };
  }

  it('asks for the next page while the caller works on the current one, and only one page ahead', async () => {
    let taken = 0;
    const { srv, page2 } = await pagedService(() => taken);
    try {
      const od = kit.track(createODataClient({ serviceURL: `${srv.origin}/svc/`, version: '4.0', http: { retry: false } }));
      const sync = new DeltaSync(od, od.from<Order>('Orders'), { store: new FileDeltaStore(join(dir, 'prefetch.json')) });
      const ids: number[] = [];
      for await (const change of sync.changes()) {
        taken++;
        ids.push((change as { value: Order }).value.ID);
        // holding the first record of page 1: page 2 arrives at the server meanwhile
        if (taken === 1) expect(await page2).toBe(1);
        if (taken === 1) expect(srv.requests.map((r) => r.url)).toEqual(['/svc/Orders', '/svc/Orders?$skiptoken=1']);
      }
      expect(ids).toEqual([1, 2, 3, 4, 5, 6]);
    } finally {
      await srv.close();
    }
  });

  it('prefetch: false asks for a page once the caller took every record of the one before', async () => {
    let taken = 0;
    const { srv, page2 } = await pagedService(() => taken);
    try {
      const od = kit.track(createODataClient({ serviceURL: `${srv.origin}/svc/`, version: '4.0', http: { retry: false } }));
      const sync = new DeltaSync(od, od.from<Order>('Orders'), { store: new FileDeltaStore(join(dir, 'no-prefetch.json')), prefetch: false });
      for await (const _change of sync.changes()) taken++;
      expect(await page2).toBe(2);
      expect(taken).toBe(6);
    } finally {
      await srv.close();
    }
  });

  it('breaking out cancels the page asked for ahead and keeps the old link', async () => {
    const { srv } = await pagedService(() => 0);
    const store = new FileDeltaStore(join(dir, 'break.json'));
    try {
      const od = kit.track(createODataClient({ serviceURL: `${srv.origin}/svc/`, version: '4.0', http: { retry: false } }));
      for await (const _change of new DeltaSync(od, od.from<Order>('Orders'), { store, key: 'k' }).changes()) break;
      expect(await store.load('k')).toBeUndefined();
    } finally {
      await srv.close();
    }
  });
});

describe('DeltaSync.pages()', () => {
  it('gives each page with the link to resume from; a kept next link resumes the read in the middle', async () => {
    const od = kit.client('4.0');
    const orders = od.from<Order>('Orders');
    const file = join(dir, 'pages.json');
    const sync = new DeltaSync(od, orders, { store: new FileDeltaStore(file), key: 'p' });
    const first: DeltaPage<Order>[] = [];
    for await (const page of sync.pages()) first.push(page);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ nextLink: undefined, deltaLink: expect.stringMatching(/\$deltatoken=\d+$/) });
    expect(await new FileDeltaStore(file).load('p')).toBe(first[0]!.deltaLink);
    for (const c of ['P1', 'P2', 'P3']) await orders.create({ Customer: c });
    const pages: DeltaPage<Order>[] = [];
    for await (const page of sync.pages()) pages.push(page);
    expect(pages.map((p) => p.changes.length)).toEqual([2, 1]);
    expect(pages[0]!.nextLink).toMatch(/\$skiptoken=2$/);
    expect(pages[0]!.deltaLink).toBeUndefined();
    // a store that holds the first page's next link: the read goes on from the second page
    const resumed = new DeltaSync(od, orders, { store: { load: () => Promise.resolve(pages[0]!.nextLink), save: () => Promise.resolve(), clear: () => Promise.resolve() } });
    const rest: DeltaPage<Order>[] = [];
    for await (const page of resumed.pages()) rest.push(page);
    expect(rest.map((p) => p.changes.map((c) => (c as { value: Order }).value.Customer))).toEqual([['P3']]);
    expect(rest[0]!.deltaLink).toBe(pages[1]!.deltaLink);
  });
});
