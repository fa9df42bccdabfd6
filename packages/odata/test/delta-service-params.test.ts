// The service URL's own query options (SAP's `sap-client=100`) on every request of a change-tracking read and on
// the links it hands out and keeps: the testkit's client-scoped delta service (node:http), which records each
// request's URL, whose next and delta links omit them and which answers a request without them with another
// client's data, as SAP does.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startClientScopedDeltaServer, type TestServer } from '@sluice/testkit';
import { createODataClient, DeltaSync, type DeltaStore, type ODataClient, type PageEnd } from '../src/index.js';
import { memoryStore } from './memory-store.js';

describe('service URL query options (sap-client) in change-tracking reads', () => {
  let srv: TestServer;
  let od: ODataClient;
  /** The URL (path and query) of each request, in order. */
  const requested = (): string[] => srv.requests.map((r) => r.url);
  beforeAll(async () => {
    srv = await startClientScopedDeltaServer();
    od = createODataClient({ serviceURL: `${srv.origin}/odata/?sap-client=100`, version: '4.0', http: { retry: false } });
    await od.metadata();
  });
  afterAll(async () => {
    await od?.close();
    await srv?.close();
  });
  beforeEach(() => { srv.requests.length = 0; });

  const url = (path: string): string => `${srv.origin}/odata/${path}`;
  function expectAllWithClient(): void {
    expect(requested().length).toBeGreaterThan(0);
    for (const r of requested()) expect(new URL(r, 'http://x').searchParams.get('sap-client'), r).toBe('100');
  }
  const ids = (changes: readonly { kind: string; value?: unknown }[]): unknown[] => changes.map((c) => (c.value as { ID: number }).ID);

  it.each([true, false])('pages() (prefetch %s): the first load, the links it hands out and keeps, and the run from the kept link carry sap-client', async (prefetch) => {
    const store = memoryStore();
    const sync = new DeltaSync(od, od.from('Items'), { store, prefetch });
    const pages = [];
    for await (const page of sync.pages()) pages.push({ ids: ids(page.changes), nextLink: page.nextLink, deltaLink: page.deltaLink });
    expect(pages).toEqual([
      { ids: [1], nextLink: url('Items?$skiptoken=1&sap-client=100'), deltaLink: undefined },
      { ids: [2], nextLink: undefined, deltaLink: url('Items?$deltatoken=1&sap-client=100') },
    ]);
    expect(store.link).toBe(url('Items?$deltatoken=1&sap-client=100'));
    expectAllWithClient();

    srv.requests.length = 0;
    const next = [];
    for await (const page of new DeltaSync(od, od.from('Items'), { store }).pages()) next.push(ids(page.changes));
    expect(next).toEqual([[3]]);
    expect(store.link).toBe(url('Items?$deltatoken=2&sap-client=100'));
    expectAllWithClient();
  });

  it.each([true, false])('pageBatches() (prefetch %s): the first load, its page ends, a read resumed from a page end\'s next link and the run from the kept delta link carry sap-client', async (prefetch) => {
    const store = memoryStore();
    const read = async (s: DeltaStore): Promise<{ ids: unknown[]; end?: unknown }[]> => {
      const out: { ids: unknown[]; end?: unknown }[] = [];
      for await (const batch of new DeltaSync(od, od.from('Items'), { store: s, prefetch }).pageBatches()) out.push(batch.end === undefined ? { ids: ids(batch.changes) } : { ids: [], end: batch.end });
      return out;
    };
    expect(await read(store)).toEqual([
      { ids: [1] }, { ids: [], end: { nextLink: url('Items?$skiptoken=1&sap-client=100'), deltaLink: undefined } },
      { ids: [2] }, { ids: [], end: { nextLink: undefined, deltaLink: url('Items?$deltatoken=1&sap-client=100') } },
    ]);
    expect(store.link).toBe(url('Items?$deltatoken=1&sap-client=100'));
    expectAllWithClient();

    // A read killed after its first page resumes from that page's next link: the same request as the whole read made.
    srv.requests.length = 0;
    const resumed = memoryStore(url('Items?$skiptoken=1&sap-client=100'));
    expect(await read(resumed)).toEqual([{ ids: [2] }, { ids: [], end: { nextLink: undefined, deltaLink: url('Items?$deltatoken=1&sap-client=100') } }]);
    expect(requested()).toEqual(['/odata/Items?$skiptoken=1&sap-client=100']);

    srv.requests.length = 0;
    expect(await read(store)).toEqual([{ ids: [3] }, { ids: [], end: { nextLink: undefined, deltaLink: url('Items?$deltatoken=2&sap-client=100') } }]);
    expectAllWithClient();
  });

  it('a kept link without sap-client (kept by an earlier version) is read with it', async () => {
    for (const how of ['pages', 'pageBatches'] as const) {
      srv.requests.length = 0;
      const store = memoryStore(url('Items?$deltatoken=1'));
      const sync = new DeltaSync(od, od.from('Items'), { store });
      const seen: unknown[] = [];
      if (how === 'pages') for await (const page of sync.pages()) seen.push(...ids(page.changes));
      else for await (const batch of sync.pageBatches()) if (batch.changes !== undefined) seen.push(...ids(batch.changes));
      expect(seen).toEqual([3]);
      expect(store.link).toBe(url('Items?$deltatoken=2&sap-client=100'));
      expectAllWithClient();
    }
  });

  it('query.pageBatches(): each page end gives the next link the read follows and the delta link with sap-client', async () => {
    const ends: PageEnd[] = [];
    for await (const item of od.from('Items').pageBatches({ headers: { prefer: 'odata.track-changes' } })) if (item.page !== undefined) ends.push(item.page);
    expect(ends.map((e) => [e.nextLink, e.deltaLink])).toEqual([
      [url('Items?$skiptoken=1&sap-client=100'), undefined],
      [undefined, url('Items?$deltatoken=1&sap-client=100')],
    ]);
    // The next link a page end gives is the URL the read requested next.
    expect(requested().map((r) => `${srv.origin}${r}`)).toContain(ends[0]!.nextLink);
    expectAllWithClient();
  });
});
