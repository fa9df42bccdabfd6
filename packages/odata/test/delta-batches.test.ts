// DeltaSync.pageBatches(): the changes of pages() as their bytes arrive, each page followed by its end with the
// link to resume from: against the testkit's change tracking (v4 in its 4.0 and 4.01 forms, v2 SAP Gateway
// __delta) and a node:http service whose second delta page breaks in the middle of its body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '@sluice/testkit';
import { memoryStore } from './memory-store.js';
import { useWriteServer } from './write-server.js';
import { createODataClient, DeltaExpiredError, type ODataClient, DeltaSync, PageError, type DeltaChange, type DeltaPageEnd } from '../src/index.js';

interface Order { ID: number; Customer: string; Status: string }

const kit = useWriteServer();

interface Read<T> { pages: { changes: DeltaChange<T>[]; end: DeltaPageEnd }[]; batches: number }

/** Each page's changes (its batches joined) with its end; fails if changes come after the last end. `onBatch` sees each batch. */
async function readBatches<T>(sync: DeltaSync<T>, onBatch?: (changes: readonly DeltaChange<T>[]) => void): Promise<Read<T>> {
  const pages: Read<T>['pages'] = [];
  let changes: DeltaChange<T>[] = [];
  let batches = 0;
  for await (const batch of sync.pageBatches()) {
    if (batch.end !== undefined) {
      pages.push({ changes, end: batch.end });
      changes = [];
    } else {
      batches++;
      onBatch?.(batch.changes);
      changes.push(...batch.changes);
    }
  }
  expect(changes).toEqual([]);
  return { pages, batches };
}

/** The same read by pages(), from a store holding `link`. */
async function readPages<T>(od: ODataClient, link: string | undefined): Promise<Read<T>['pages']> {
  const sync = new DeltaSync<T>(od, od.from('Orders') as never, { store: memoryStore(link) });
  const out: Read<T>['pages'] = [];
  for await (const page of sync.pages()) out.push({ changes: [...page.changes], end: { nextLink: page.nextLink, deltaLink: page.deltaLink } });
  return out;
}

describe.each([
  ['OData 4.0', '4.0', {}],
  ['OData 4.01 removals (@removed)', '4.0', { 'odata-maxversion': '4.01' }],
  ['OData v2 (SAP Gateway __delta)', '2.0', {}],
] as const)('DeltaSync.pageBatches(), %s', (_name, version, headers) => {
  it('gives the changes and page ends of pages(): the first load, then updates, removals and inserts across pages; saves the delta link at the end', async () => {
    const od = kit.client(version, { http: { retry: false, headers } });
    const orders = od.from<Order>('Orders');
    const ids: number[] = [];
    for (const c of ['A', 'B', 'C']) ids.push((await orders.create({ Customer: c })).value!.ID);
    const store = memoryStore();
    const first = await readBatches(new DeltaSync(od, orders, { store }));
    expect(first.pages).toHaveLength(1);
    expect(first.pages[0]!.changes.every((c) => c.kind === 'entity')).toBe(true);
    expect(first.pages[0]!.changes.map((c) => (c as { value: Order }).value.Customer)).toEqual(expect.arrayContaining(['A', 'B', 'C']));
    expect(first.pages[0]!.end.nextLink).toBeUndefined();
    expect(store.link).toBe(first.pages[0]!.end.deltaLink);
    expect(store.link).toMatch(/deltatoken/);

    const link = store.link!;
    await orders.key(ids[0]!).update({ Status: 'Open' }, { etag: '*' });
    await orders.key(ids[1]!).delete({ etag: '*' });
    await orders.create({ Customer: 'D' });
    await orders.key(ids[2]!).delete({ etag: '*' });
    const second = await readBatches(new DeltaSync(od, orders, { store }));
    // A delta read changes nothing on the server: pages() of the same link is the reference.
    const expected = await readPages<Order>(od, link);
    expect(second.pages).toEqual(expected);
    expect(second.pages.map((p) => p.changes.map((c) => c.kind))).toEqual([['entity', 'removed'], ['entity', 'removed']]);
    expect(second.pages[0]!.end).toMatchObject({ nextLink: expect.stringContaining('skiptoken'), deltaLink: undefined });
    expect((second.pages[0]!.changes[1] as { id: string }).id).toMatch(new RegExp(`Orders\\(${ids[1]}\\)$`));
    expect(second.pages[0]!.changes[0]).not.toHaveProperty('value.@odata.etag');
    expect(store.link).toBe(second.pages[1]!.end.deltaLink);
    expect(store.link).not.toBe(link);
  });

  it('a refused kept link is DeltaExpiredError and clears the link', async () => {
    const od = kit.client(version, { http: { retry: false, headers } });
    const store = memoryStore();
    await readBatches(new DeltaSync(od, od.from<Order>('Orders'), { store }));
    const w = kit.server().writes!.store;
    w.expiredBefore = w.seq + 1;
    try {
      await expect(readBatches(new DeltaSync(od, od.from<Order>('Orders'), { store }))).rejects.toBeInstanceOf(DeltaExpiredError);
    } finally {
      w.expiredBefore = 0;
    }
    expect(store.link).toBeUndefined();
  });
});

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="Demo" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Rate" Type="Edm.Double"/></EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

describe('DeltaSync.pageBatches(), a page whose body breaks', () => {
  let srv: TestServer;
  let breakSecond = true;
  // The second page's rest is sent once its first write was handed out as a batch: a timer would race a loaded
  // machine, which may read both writes at once (one batch). After 10 s it goes anyway (the read would hang).
  let sendRest: () => void = () => undefined;
  let restWanted = Promise.resolve();
  beforeAll(async () => {
    srv = await startServer((req, res) => {
      const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
      if (pathname.endsWith('/$metadata')) {
        res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }).end(METADATA);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' });
      const filler = 'x'.repeat(4000);
      if (searchParams.get('$skiptoken') === null) {
        res.end(`{"@odata.context":"$metadata#Items/$delta","value":[{"ID":1,"Rate":"INF","Note":"${filler}"},{"@odata.removed":{"reason":"deleted"},"@odata.id":"Items(2)"},{"ID":3,"Rate":"NaN"}],"@odata.nextLink":"Items?$deltatoken=5&$skiptoken=1"}`);
        return;
      }
      res.write(`{"@odata.context":"$metadata#Items/$delta","value":[{"ID":4,"Rate":1.5},{"@odata.removed":{"reason":"changed"},"@odata.id":"Items(5)"},`);
      if (breakSecond) setTimeout(() => res.destroy(), 20);
      else void Promise.race([restWanted, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]).then(() => res.end('{"ID":6,"Rate":-1}],"@odata.deltaLink":"Items?$deltatoken=6"}'));
    });
  });
  afterAll(() => srv?.close());

  it('ends the read with its PageError after the changes it handed out, without its end, and keeps the old link', async () => {
    const od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
    try {
      await od.metadata();
      const store = memoryStore(`${srv.origin}/odata/Items?$deltatoken=5`);
      const seen: (DeltaChange<unknown>[] | DeltaPageEnd)[] = [];
      const sync = new DeltaSync(od, od.from('Items'), { store });
      breakSecond = true;
      const error = await (async () => {
        for await (const batch of sync.pageBatches()) seen.push(batch.end ?? [...batch.changes]);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PageError);
      expect((error as PageError).willRetry).toBe(false);
      const ends = seen.filter((s): s is DeltaPageEnd => !Array.isArray(s));
      expect(ends).toEqual([{ nextLink: `${srv.origin}/odata/Items?$deltatoken=5&$skiptoken=1`, deltaLink: undefined }]);
      // The first page's changes, decoded by type (Doubles' INF and NaN), the removal as sent; then its end.
      const firstPage = seen.slice(0, seen.indexOf(ends[0]!)).flat() as DeltaChange<unknown>[];
      expect(firstPage).toEqual([
        { kind: 'entity', value: { ID: 1, Rate: Infinity, Note: 'x'.repeat(4000) } },
        { kind: 'removed', id: 'Items(2)', reason: 'deleted' },
        { kind: 'entity', value: { ID: 3, Rate: NaN } },
      ]);
      expect(store.link).toBe(`${srv.origin}/odata/Items?$deltatoken=5`);

      breakSecond = false;
      restWanted = new Promise((resolve) => { sendRest = resolve; });
      const whole = await readBatches(new DeltaSync(od, od.from('Items'), { store }), (changes) => {
        // A change of the second page (ID 4, or the removal of 5) means its first write was read.
        if (changes.some((c) => (c.kind === 'removed' && c.id === 'Items(5)') || (c.kind === 'entity' && (c.value as { ID: number }).ID === 4))) sendRest();
      });
      expect(whole.pages.map((p) => p.changes)).toEqual([firstPage, [
        { kind: 'entity', value: { ID: 4, Rate: 1.5 } },
        { kind: 'removed', id: 'Items(5)', reason: 'changed' },
        { kind: 'entity', value: { ID: 6, Rate: -1 } },
      ]]);
      // The second page came in two writes, the second after the first was handed out: more than one batch.
      expect(whole.batches).toBeGreaterThan(2);
      expect(store.link).toBe(`${srv.origin}/odata/Items?$deltatoken=6`);
    } finally {
      await od.close();
    }
  });
});
