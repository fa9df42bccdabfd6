// pageBatches(): the records of streamBatches() with the end of each page (its URL, next link, count), against the
// testkit OData server (v4 and v2, its faults): a page's end comes after its last record and before the next page's.
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, PageError, type PageBatch, type PageEnd } from '../src/index.js';

interface Product { ID: number; Name: string }

let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 2500, pageSize: 1000 });
});
afterAll(async () => {
  await srv.close();
});

/** The pages as pageBatches() delimits them: the IDs before each page end, the end, and the errors on the way. */
async function pagesOf(items: AsyncIterable<PageBatch<Product>>): Promise<{ pages: { ids: number[]; end: PageEnd }[]; rest: number[]; batches: number; errors: Error[] }> {
  const pages: { ids: number[]; end: PageEnd }[] = [];
  const errors: Error[] = [];
  let ids: number[] = [];
  let batches = 0;
  for await (const item of items) {
    if (item.error !== undefined) errors.push(item.error);
    else if (item.page !== undefined) {
      pages.push({ ids, end: item.page });
      ids = [];
    } else {
      batches++;
      ids.push(...item.value.map((p) => p.ID));
    }
  }
  return { pages, rest: ids, batches, errors };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const [name, root, version] of [['v4', 'v4', '4.0'], ['v2', 'v2', '2.0']] as const) {
  describe(`pageBatches() against the test server, ${name}`, () => {
    it('hands out each page in batches, then its end with the next link (none on the last page) and the count', async () => {
      const od = createODataClient({ serviceURL: srv[root], version, http: { retry: false } });
      const { pages, rest, batches, errors } = await pagesOf(od.from<Product>('Products').count().pageBatches());
      await od.close();
      expect(errors).toEqual([]);
      expect(rest).toEqual([]);
      expect(pages.map((p) => p.ids)).toEqual([range(1, 1000), range(1001, 2000), range(2001, 2500)]);
      // A page comes in more than one batch: batches are runs of body chunks.
      expect(batches).toBeGreaterThan(3);
      expect(pages.map((p) => p.end.count)).toEqual([2500, 2500, 2500]);
      expect(pages[0]!.end.nextLink).toContain('Products');
      expect(pages[2]!.end.nextLink).toBeUndefined();
      // Each page's URL is the link of the page before it (resolved against the service).
      expect(new URL(pages[1]!.end.url, srv[root]).href).toBe(new URL(pages[0]!.end.nextLink!, srv[root]).href);
    });

    it('a page whose body broke is resumed after the records handed out: each page has its records once, then its end', async () => {
      for (const faults of [{ resetPage: { page: 1 } }, { truncatePage: { page: 2 } }]) {
        srv.setFaults(faults);
        const od = createODataClient({ serviceURL: srv[root], version, http: { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 } } });
        const { pages, errors } = await pagesOf(od.from<Product>('Products').pageBatches());
        srv.setFaults({});
        await od.close();
        expect(pages.map((p) => p.ids)).toEqual([range(1, 1000), range(1001, 2000), range(2001, 2500)]);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(PageError);
        expect((errors[0] as PageError).willRetry).toBe(true);
      }
    });

    it('a page that fails for good ends the read with its error, without its end', async () => {
      srv.setFaults({ failPage: { page: 1, status: 500, times: 5 } });
      const od = createODataClient({ serviceURL: srv[root], version, http: { retry: false } });
      const { pages, rest, errors } = await pagesOf(od.from<Product>('Products').pageBatches());
      srv.setFaults({});
      await od.close();
      expect(pages.map((p) => p.ids)).toEqual([range(1, 1000)]);
      expect(rest).toEqual([]);
      expect(errors).toHaveLength(1);
      expect((errors[0] as PageError).willRetry).toBe(false);
    });
  });
}
