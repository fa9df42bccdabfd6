// OData attributes on the spans of core's otel() plugin: entity set, operation and page, per request.
import { otel } from '@sluice/core';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAsyncPoller, createODataClient, DeltaSync, ODATA_SPAN_ATTRIBUTES as A, type DeltaStore, type ODataClient } from '../src/index.js';

let srv: ODataTestServer;
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
const clients: ODataClient[] = [];
beforeAll(async () => {
  srv = await startODataServer({ products: 25, pageSize: 10, writes: true });
});
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
  await srv.close();
});
beforeEach(() => exporter.reset());

function client(version: '2.0' | '4.0' = '4.0'): ODataClient {
  const od = createODataClient({ serviceURL: version === '4.0' ? srv.v4 : srv.v2, version, http: { retry: { maxAttempts: 2, waitBase: 1 }, plugins: [otel({ tracerProvider: provider })] } });
  clients.push(od);
  return od;
}

/** The OData attributes of each finished span, in order. */
const odataOf = (spans: readonly ReadableSpan[]): Record<string, unknown>[] =>
  spans.map((s) => Object.fromEntries(Object.entries(s.attributes).filter(([k]) => k.startsWith('odata.'))));

describe('OData span attributes (otel plugin)', () => {
  it('a paged read: entity set, read, and the page number of each page request, v4 and v2', async () => {
    for (const version of ['4.0', '2.0'] as const) {
      exporter.reset();
      const ids: unknown[] = [];
      for await (const item of client(version).from('Products').select('ID').stream()) if (item.error === undefined) ids.push(item.value);
      expect(ids).toHaveLength(25);
      expect(odataOf(exporter.getFinishedSpans())).toEqual([1, 2, 3].map((page) => ({ [A.entitySet]: 'Products', [A.operationType]: 'read', [A.pageNumber]: page })));
    }
  });

  it('a page read again after its body broke keeps its number', async () => {
    srv.setFaults({ resetPage: { page: 1, times: 1 } });
    try {
      const pages: number[] = [];
      for await (const page of client().from('Products').pages()) pages.push(page.value.length);
      expect(pages).toEqual([10, 10, 5]);
    } finally {
      srv.setFaults({});
    }
    const numbers = odataOf(exporter.getFinishedSpans()).map((a) => a[A.pageNumber]);
    expect(numbers).toEqual([1, 2, 2, 3]);
  });

  it('single reads, counts, writes, operations, batches and async polls each say what they are', async () => {
    const od = client();
    await od.metadata();
    await od.from('Products').key(1).get();
    await od.from('Products').countOnly();
    const { value } = await od.from('Orders').create({ Customer: 'Span', Amount: '1', Quantity: 1 });
    const id = (value as { ID: number }).ID;
    await od.from('Orders').key(id).update({ Customer: 'Span 2' }, { etag: '*' });
    await od.from('Orders').key(id).action('Demo.Approve').parameter('Comment', 'ok').execute({ etag: '*' });
    await od.function('Echo', { Text: 'x', Count: 1 }).execute();
    const batch = od.batch();
    batch.get(od.from('Products').key(2));
    await batch.send();
    const run = await od.action('StartJob').parameter('Polls', 0).execute({ async: true });
    await createAsyncPoller(od, run.location!, { pollInterval: 1 }).wait();
    await od.from('Orders').key(id).delete({ etag: '*' });
    expect(odataOf(exporter.getFinishedSpans())).toEqual([
      { [A.operationType]: 'metadata' },
      { [A.operationType]: 'read', [A.entitySet]: 'Products' },
      { [A.operationType]: 'count', [A.entitySet]: 'Products' },
      { [A.operationType]: 'create', [A.entitySet]: 'Orders' },
      { [A.operationType]: 'update', [A.entitySet]: 'Orders' },
      { [A.operationType]: 'action', [A.operationName]: 'Demo.Approve', [A.entitySet]: 'Orders' },
      { [A.operationType]: 'function', [A.operationName]: 'Echo' },
      { [A.operationType]: 'batch' },
      { [A.operationType]: 'action', [A.operationName]: 'StartJob' },
      { [A.operationType]: 'async_poll' },
      { [A.operationType]: 'async_result' },
      { [A.operationType]: 'delete', [A.entitySet]: 'Orders' },
    ]);
  });

  it('delta pages are delta reads of the entity set, numbered', async () => {
    const od = client();
    for (const c of ['d1', 'd2', 'd3']) await od.from('Orders').create({ Customer: c, Amount: '1', Quantity: 1 });
    const kept = new Map<string, string>();
    const store: DeltaStore = { load: async (k) => kept.get(k), save: async (k, v) => { kept.set(k, v); }, clear: async (k) => { kept.delete(k); } };
    const sync = new DeltaSync(od, od.from('Orders'), { store, key: 'o' });
    for await (const _c of sync.changes()) { /* the full read */ }
    for (const c of ['d4', 'd5', 'd6']) await od.from('Orders').create({ Customer: c, Amount: '1', Quantity: 1 });
    exporter.reset();
    for await (const _c of sync.changes()) { /* three changes in pages of two */ }
    expect(odataOf(exporter.getFinishedSpans())).toEqual([1, 2].map((page) => ({ [A.operationType]: 'delta', [A.entitySet]: 'Orders', [A.pageNumber]: page })));
  });
});
