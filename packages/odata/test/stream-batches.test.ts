// streamBatches(): the records of stream() in arrays, with stream()'s error items, events and cancellation,
// against the testkit OData server (v4 and v2, its faults) and node:http servers for broken bodies.
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import type { SluiceEvent } from '@sluice/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, PageError, RecordDecodeError, type StreamItem } from '../src/index.js';
import { brokenSecondPage, client, json, serve } from './helpers.js';

interface Product { ID: number; Name: string; Stock: string; __metadata?: unknown }

let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 2500, pageSize: 1000 });
});
afterAll(async () => {
  await srv.close();
});

async function batchesOf<T>(items: AsyncIterable<StreamItem<T[]>>): Promise<StreamItem<T[]>[]> {
  const out: StreamItem<T[]>[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The records of batch items in order (errors left out). */
const flat = <T>(items: StreamItem<T[]>[]): T[] => items.flatMap((i) => (i.error === undefined ? i.value : []));

/** What an event says about a request, without its timing. */
const shape = (e: SluiceEvent): string => `${e.type} ${String((e as { url?: unknown }).url ?? '')} ${String((e as { status?: unknown }).status ?? '')}`;

for (const [name, root, version] of [['v4', 'v4', '4.0'], ['v2', 'v2', '2.0']] as const) {
  describe(`streamBatches() against the test server, ${name}`, () => {
    it('hands out the records of stream(), in order, as arrays, with the same requests and events', async () => {
      const events: { stream: string[]; batches: string[] } = { stream: [], batches: [] };
      const open = (into: string[]) => createODataClient({ serviceURL: srv[root], version, http: { retry: false, onEvent: (e) => into.push(shape(e)) } });
      const one = open(events.stream);
      const many = open(events.batches);
      const expected: Product[] = [];
      for await (const item of one.from<Product>('Products').stream()) {
        if (item.error) throw item.error;
        expected.push(item.value);
      }
      const items = await batchesOf(many.from<Product>('Products').streamBatches());
      expect(items.every((i) => i.error === undefined && Array.isArray(i.value) && i.value.length > 0)).toBe(true);
      // Pages of 1,000 records come in more than one array each: a batch is a run of a chunk, not a page.
      expect(items.length).toBeGreaterThan(3);
      const got = flat(items);
      expect(got).toEqual(expected);
      expect(got.map((p) => p.ID)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
      // Shaped as stream() shapes them: v2's __metadata is gone, Int64 is a string of its digits.
      expect(got[0]!.__metadata).toBeUndefined();
      expect(typeof got[10]!.Stock).toBe('string');
      expect(events.batches).toEqual(events.stream);
      expect(events.batches.filter((e) => e.startsWith('request.response'))).toHaveLength(3);
      await Promise.all([one.close(), many.close()]);
    });

    it('resumes a reset and a truncated page without losing or repeating records', async () => {
      for (const faults of [{ resetPage: { page: 1 } }, { truncatePage: { page: 2 } }]) {
        srv.setFaults(faults);
        const od = createODataClient({ serviceURL: srv[root], version, http: { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 } } });
        const items = await batchesOf(od.from<Product>('Products').streamBatches());
        srv.setFaults({});
        await od.close();
        expect(flat(items).map((p) => p.ID)).toEqual(Array.from({ length: 2500 }, (_, i) => i + 1));
        const errors = items.filter((i) => i.error).map((i) => i.error as PageError);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toBeInstanceOf(PageError);
        expect(errors[0]!.willRetry).toBe(true);
      }
    });

    it('ends with the page error, last, when a page fails for good', async () => {
      srv.setFaults({ failPage: { page: 1, status: 500, times: 5 } });
      const od = createODataClient({ serviceURL: srv[root], version, http: { retry: false } });
      const items = await batchesOf(od.from<Product>('Products').streamBatches());
      srv.setFaults({});
      await od.close();
      expect(flat(items)).toHaveLength(1000);
      const last = items.at(-1)!.error as PageError;
      expect(last).toBeInstanceOf(PageError);
      expect(last.willRetry).toBe(false);
      expect(last.status).toBe(500);
      expect(items.filter((i) => i.error)).toHaveLength(1);
    });
  });
}

describe('streamBatches() on node:http servers', () => {
  it('splits a run at a record that fails to decode: records before, the error, records after', async () => {
    const server = await serve({ '/svc/P': (res) => json(res, '{"value":[{"ID":1},{"ID":2},{"ID":tru},{"ID":4}]}') });
    const items = await batchesOf(client(server).from<{ ID: number }>('P').streamBatches());
    expect(items).toHaveLength(3);
    expect(items[0]).toEqual({ value: [{ ID: 1 }, { ID: 2 }] });
    const error = items[1]!.error as RecordDecodeError;
    expect(error).toBeInstanceOf(RecordDecodeError);
    expect(error.index).toBe(2);
    expect(error.excerpt).toBe('{"ID":tru}');
    expect(items[2]).toEqual({ value: [{ ID: 4 }] });
  });

  it('hands out what arrived before the body broke, then the retry notice, then the rest once', async () => {
    // Two whole records of page 2, then the socket is destroyed mid-record.
    const server = await brokenSecondPage('{"value":[{"ID":3},{"ID":4},{"ID":');
    const items = await batchesOf(client(server).from<{ ID: number }>('P').streamBatches());
    expect(flat(items).map((r) => r.ID)).toEqual([1, 2, 3, 4, 5, 6]);
    const errorAt = items.findIndex((i) => i.error);
    expect((items[errorAt]!.error as PageError).willRetry).toBe(true);
    expect(flat(items.slice(0, errorAt)).map((r) => r.ID)).toEqual([1, 2, 3, 4]);
    expect(server.requests.filter((r) => r.url === '/svc/P?p=2')).toHaveLength(2);
  });

  it('ends with a PageError whose cause is the abort when the signal aborts mid-page', async () => {
    const server = await serve({
      '/svc/P': (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"value":[{"ID":1},{"ID":2},'); },
    });
    const controller = new AbortController();
    const items: StreamItem<{ ID: number }[]>[] = [];
    for await (const item of client(server).from<{ ID: number }>('P').streamBatches({ signal: controller.signal })) {
      items.push(item);
      if (items.length === 1) controller.abort();
    }
    expect(items[0]).toEqual({ value: [{ ID: 1 }, { ID: 2 }] });
    expect(items).toHaveLength(2);
    expect(items[1]!.error).toBeInstanceOf(PageError);
    expect((items[1]!.error as PageError).cause).toMatchObject({ name: 'AbortError' });
  });

  it('cancels the page in flight when the caller breaks out of the loop', async () => {
    let closed!: () => void;
    const socketClosed = new Promise<void>((r) => { closed = r; });
    const server = await serve({
      '/svc/P': (res) => {
        res.on('close', () => closed());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"value":[{"ID":1},'); // and never finishes
      },
    });
    for await (const item of client(server).from<{ ID: number }>('P').streamBatches()) {
      expect(item.value).toEqual([{ ID: 1 }]);
      break;
    }
    await socketClosed;
    expect(server.requests).toHaveLength(1);
  });

  it('rejects an unknown option by name, as stream() does', () => {
    const server = { origin: 'http://127.0.0.1:9' } as Parameters<typeof client>[0];
    expect(() => client(server).from('P').streamBatches({ prefech: true } as never)).toThrow(/prefech.*streamBatches\(\)/);
  });
});
