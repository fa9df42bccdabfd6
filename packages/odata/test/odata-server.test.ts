import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '@sluice/core';
import {
  createODataClient, datetime, ForeignOriginError, ODataVersionError, guid, int64, ODataError, ODataFormatError, PageError, type ODataClient, type StreamItem,
} from '../src/index.js';

interface Product {
  ID: number; Name: string; Description: string | null; Price: string; Stock: string; Rating: number; Active: boolean;
  ReleaseDate: string | Date; Guid: string; CategoryID: number; Category?: { ID: number; Name: string };
}

let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 250, pageSize: 100 });
});
afterAll(async () => {
  await srv.close();
});
afterEach(() => {
  srv.setFaults({});
});

const fast = { retry: { maxAttempts: 1, waitBase: 1, maxWait: 2 } };
const clients: ODataClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});
function od(version: '2.0' | '4.0' | 'auto', root: 'v2' | 'v4', extra: Partial<Parameters<typeof createODataClient>[0]> = {}): ODataClient {
  const client = createODataClient({ serviceURL: srv[root], version, http: fast, ...extra });
  clients.push(client);
  return client;
}
const since = (mark: number): string[] => srv.requests.slice(mark).map((r) => r.url);

for (const [name, root, version] of [['v4', 'v4', '4.0'], ['v2', 'v2', '2.0']] as const) {
  describe(`OData ${name} against the test server`, () => {
    it('detects the version from $metadata and caches the document', async () => {
      const client = od('auto', root);
      const mark = srv.requests.length;
      const [a, b] = await Promise.all([client.metadata(), client.metadata()]);
      expect(a).toBe(b);
      await client.from('Products').key(1).get();
      await client.metadata();
      expect(client.version).toBe(version);
      expect(since(mark).filter((u) => u.includes('$metadata'))).toHaveLength(1);
      expect(a.entitySets.get('Products')?.entityType?.key).toEqual(['ID']);
      expect(a.entitySets.get('OrderItems')?.entityType?.key).toEqual(['OrderID', 'ItemNo']);
      expect(a.entitySets.get('Products')?.entityType?.properties.get('Stock')?.type).toBe('Edm.Int64');
      expect(a.entitySets.get('Categories')?.entityType?.navigation.get('Products')).toMatchObject({ type: 'Demo.Product', collection: true });
    });

    it('detects the version from the first response\'s headers without downloading $metadata', async () => {
      const client = od('auto', root);
      const mark = srv.requests.length;
      const rows = await client.from<Product>('Products').top(2).list();
      expect(rows.map((r) => r.ID)).toEqual([1, 2]);
      expect(client.version).toBe(version);
      const urls = since(mark);
      expect(urls[0]).toBe(new URL(srv[root]).pathname);
      expect(urls.some((u) => u.includes('$metadata'))).toBe(false);
      expect(urls).toHaveLength(2);
    });

    it('fails on the first response when the declared version is wrong, saying what the server speaks', async () => {
      const other = version === '4.0' ? '2.0' : '4.0';
      const mark = srv.requests.length;
      const error = await od(other, root, { http: { retry: { maxAttempts: 4, waitBase: 1, maxWait: 2 } } }).from('Products').list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ODataVersionError);
      expect((error as ODataVersionError).server).toBe(version);
      expect((error as Error).message).toContain(`speaks OData ${version}`);
      expect(since(mark)).toHaveLength(1);
    });

    it('streams every record across server-driven pages, following next links only', async () => {
      const mark = srv.requests.length;
      const pages = [];
      for await (const page of od(version, root).from<Product>('Products').count().param('sap-client', '100').pages()) pages.push(page);
      expect(pages.map((p) => p.value.length)).toEqual([100, 100, 50]);
      expect(pages.flatMap((p) => p.value.map((r) => r.ID))).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
      expect(pages[0]!.count).toBe(250);
      const urls = since(mark);
      // Each request after the first is exactly the previous page's next link; no $top/$skip invented.
      expect(urls.slice(1)).toEqual(pages.slice(0, -1).map((p) => p.nextLink!.slice(srv.origin.length)));
      for (const url of urls) expect(url).toContain('sap-client=100');
      for (const url of urls) expect(url).not.toMatch(/\$top|\$skip=/);
    });

    it('reads records into one shape, Int64 and Decimal exact', async () => {
      const rows = await od(version, root).from<Product>('Products').filter((f) => f.eq('ID', 11)).list();
      expect(rows).toHaveLength(1);
      const row = rows[0]!;
      expect(row.Stock).toBe((9007199254740993n + 11n).toString());
      expect(typeof row.Price).toBe('string');
      expect(row).not.toHaveProperty('__metadata');
      expect(row).not.toHaveProperty('Category');
      // One representation on both versions: ISO 8601 text (v2's /Date(ms)/ decoded).
      expect(row.ReleaseDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    });

    it('filters with quoted strings, functions, arithmetic and null checks', async () => {
      const q = od(version, root).from<Product>('Products');
      const brien = await q.filter((f) => f.eq('Name', "O'Brien 7")).list();
      expect(brien.map((r) => r.ID)).toEqual([7]);
      const some = await q.filter((f) => f.and(f.contains(f.tolower('Name'), "o'brien"), f.startswith('Name', 'O'), f.eq(f.mod('ID', 2), 0), f.le('ID', 50))).list();
      expect(some.map((r) => r.ID)).toEqual([14, 28, 42]);
      const nulls = await q.filter((f) => f.and(f.isNull('Description'), f.lt(f.add('ID', 1), 12))).list();
      expect(nulls.map((r) => r.ID)).toEqual([5, 10]);
      const notIn = await q.filter((f) => f.and(f.not(f.in('CategoryID', [1, 2, 3, 4])), f.lt('ID', 16))).list();
      expect(notIn.map((r) => r.ID)).toEqual([5, 10, 15]);
    });

    it('filters on typed literals: GUID, Int64 and dates', async () => {
      const q = od(version, root).from<Product>('Products');
      const [first] = await q.filter((f) => f.eq('ID', 3)).list();
      expect((await q.filter((f) => f.eq('Guid', guid(first!.Guid))).list()).map((r) => r.ID)).toEqual([3]);
      expect((await q.filter((f) => f.eq('Stock', int64(9007199254740993n + 22n))).list()).map((r) => r.ID)).toEqual([22]);
      const released = first!.ReleaseDate instanceof Date ? first!.ReleaseDate : new Date(first!.ReleaseDate);
      const lit = version === '2.0' ? datetime(released) : released;
      expect((await q.filter((f) => f.and(f.le('ReleaseDate', lit), f.le('ID', 5))).list()).map((r) => r.ID)).toEqual([1, 2, 3]);
    });

    it('selects, orders and honours $top across pages', async () => {
      const rows = await od(version, root).from<Product>('Products').select('ID', 'Name').orderBy('ID desc').top(120).list();
      expect(rows).toHaveLength(120);
      expect(rows[0]).toEqual({ ID: 250, Name: 'Product 250' });
      expect(rows.at(-1)!.ID).toBe(131);
    });

    it('counts with $count', async () => {
      const client = od(version, root);
      expect(await client.from('Products').countOnly()).toBe(250);
      expect(await client.from<Product>('Products').filter((f) => f.eq('CategoryID', 1)).countOnly()).toBe(50);
    });

    it('reads entities by single and composite key, and navigates', async () => {
      const client = od(version, root);
      const one = await client.from<Product>('Products').key(7).get();
      expect(one).toMatchObject({ ID: 7, Name: "O'Brien 7" });
      const item = await client.from<{ OrderID: number; ItemNo: string; Quantity: number }>('OrderItems').key({ OrderID: 2, ItemNo: 'C' }).get();
      expect(item).toMatchObject({ OrderID: 2, ItemNo: 'C' });
      const category = await client.from('Products').key(7).nav<{ ID: number }>('Category').get();
      expect(category.ID).toBe(2);
      const products = await client.from('Categories').key(2).navMany<Product>('Products').top(3).list();
      expect(products.map((p) => p.CategoryID)).toEqual([2, 2, 2]);
    });

    it('expands navigation properties', async () => {
      const [row] = await od(version, root).from<Product>('Products').filter((f) => f.eq('ID', 3)).expand('Category').list();
      expect(row!.Category).toMatchObject({ ID: 3 });
      if (version === '4.0') {
        const [cat] = await od(version, root).from<{ Products: Product[] }>('Categories').key(1).navMany('Products').top(1).list();
        expect(cat).toBeDefined();
        const [nested] = await od(version, root).from<Product>('Products').filter((f) => f.eq('ID', 3)).expand('Category', { select: ['Name'] }).list();
        expect(Object.keys(nested!.Category!)).toEqual(['Name']);
      }
    });

    it('turns an unknown property into an ODataError with code and status', async () => {
      const error = await od(version, root).from('Products').filter('Nope eq 1').list().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(PageError);
      const cause = (error as PageError).cause as ODataError;
      expect(cause).toBeInstanceOf(ODataError);
      expect(cause.status).toBe(400);
      expect(cause.odataMessage).not.toBe('');
      const notFound = await od(version, root).from('Products').key(99999).get().catch((e: unknown) => e);
      expect(notFound).toBeInstanceOf(ODataError);
      expect((notFound as ODataError).status).toBe(404);
    });

    it('recovers from a failing, a reset and a truncated page without losing or repeating records', async () => {
      const retrying = { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 } };
      for (const faults of [{ failPage: { page: 1, status: 503 } }, { resetPage: { page: 1 } }, { truncatePage: { page: 2 } }, { failPage: { page: 0, status: 500, xml: true } }]) {
        srv.setFaults(faults);
        const mark = srv.requests.length;
        const items: StreamItem<Product>[] = [];
        for await (const item of od(version, root, { http: retrying }).from<Product>('Products').stream()) items.push(item);
        const ids = items.flatMap((i) => (i.error === undefined ? [i.value.ID] : []));
        expect(ids).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
        const errors = items.filter((i) => i.error).map((i) => i.error as PageError);
        // Statuses are the core's to retry (no error item); a broken body is resumed by the stream.
        expect(errors).toHaveLength('failPage' in faults ? 0 : 1);
        if (errors.length) expect(errors[0]!.willRetry).toBe(true);
        expect(since(mark)).toHaveLength(4);
      }
    });

    it('a page slower than the timeout is an error item: the core retries it, the stream does not again', async () => {
      srv.setFaults({ slowFirstByteMs: 400 });
      const mark = srv.requests.length;
      const items: StreamItem<Product>[] = [];
      const slow = od(version, root, { http: { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 }, timeout: 100 } });
      for await (const item of slow.from<Product>('Products').stream({ pageRetries: 3 })) items.push(item);
      expect(items.map((i) => (i.error as PageError).willRetry)).toEqual([false]);
      expect((items[0]!.error as PageError).cause).toBeInstanceOf(TimeoutError);
      expect(since(mark)).toHaveLength(2);
      // Slow, but within the timeout: every record arrives.
      srv.setFaults({ slowFirstByteMs: 30 });
      const rows = await od(version, root, { http: { ...fast, timeout: 2000 } }).from<Product>('Products').list();
      expect(rows).toHaveLength(250);
    });

    it('rebases next links on another origin under the service root, refuses them when told, and refuses a wrong content type', async () => {
      srv.setFaults({ foreignNextLink: 'http://localhost:1' });
      const events: unknown[] = [];
      const client = od(version, root, { http: { ...fast, onEvent: (e) => events.push(e) } });
      const mark = srv.requests.length;
      expect(await client.from<Product>('Products').list()).toHaveLength(250);
      expect(since(mark)).toHaveLength(3);
      // Reported once per foreign origin, with redacted URLs.
      expect(events.filter((e) => (e as { type: string }).type.startsWith('odata.'))).toEqual([expect.objectContaining({ type: 'odata.link.rebased', kind: 'next', from: expect.stringContaining('http://localhost:1/'), to: expect.stringContaining(srv.origin) })]);
      const items: StreamItem<Product>[] = [];
      for await (const item of od(version, root, { rebaseLinks: false }).from<Product>('Products').stream()) items.push(item);
      expect(items.filter((i) => i.value)).toHaveLength(100);
      expect(items.at(-1)!.error).toBeInstanceOf(ForeignOriginError);
      srv.setFaults({ wrongContentType: true });
      const error = await od(version, root).from('Products').list().catch((e: unknown) => e);
      expect((error as PageError).cause).toBeInstanceOf(ODataFormatError);
    });
  });
}

describe('v4-only and v2-only behaviour', () => {
  it('reads v2 entities with /Date(ms)/ values as ISO text and drops deferred links', async () => {
    const one = await od('2.0', 'v2').from<Product>('Products').key(1).get();
    expect(one.ReleaseDate).toBe('2020-01-01T01:00:01.000Z');
    expect(one).not.toHaveProperty('Category');
  });

  it('types plain values from $metadata: a GUID string on v2, Int64 as numbers when asked', async () => {
    const client = od('auto', 'v2', { largeNumbers: 'number', loadMetadata: true });
    const [third] = await client.from<Product>('Products').filter((f) => f.eq('ID', 3)).list();
    const url = await client.ready().then(() => client.from<Product>('Products').filter((f) => f.eq('Guid', third!.Guid)).toURL());
    expect(decodeURIComponent(url)).toContain(`Guid eq guid'${third!.Guid}'`);
    const byGuid = await client.from<Product>('Products').filter((f) => f.eq('Guid', third!.Guid)).list();
    expect(byGuid.map((r) => r.ID)).toEqual([3]);
    expect(typeof third!.Stock).toBe('number');
  });

  it('searches', async () => {
    const rows = await od('4.0', 'v4').from<Product>('Products').search("O'Brien 14").list();
    expect(rows.map((r) => r.ID)).toEqual([14, 140, 147]);
  });

  it('searches a v2 service with the search option of SAP Gateway', async () => {
    const query = od('2.0', 'v2').from<Product>('Products').search("O'Brien 14");
    expect(query.toURL()).toContain("?search=O'Brien%2014");
    expect((await query.list()).map((r) => r.ID)).toEqual([14, 140, 147]);
  });

  it('lets the caller lower the page size with maxPageSize (v4)', async () => {
    const sizes: number[] = [];
    for await (const page of od('4.0', 'v4').from('Products').top(30).pages({ maxPageSize: 10 })) sizes.push(page.value.length);
    expect(sizes).toEqual([10, 10, 10]);
  });
});
