import { UndiciTransport, type Transport } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { PageError, ResponseSizeError } from '../src/index.js';
import { client, ids, json, records, serve } from './helpers.js';

// A prefetched page's body is read at once but parsed only when the caller reaches it.
describe('prefetched page', () => {
  it('delivers a page that arrived whole while the caller was on the page before, in order, size limit kept', async () => {
    let origin = '';
    // Resolves when the client has read the last byte of page 2 (it is then held, not yet parsed).
    let read!: () => void;
    const page2Read = new Promise<void>((resolve) => { read = resolve; });
    const inner = new UndiciTransport();
    const transport: Transport = {
      close: () => inner.close(),
      async send(req) {
        const res = await inner.send(req);
        if (!req.path.endsWith('/P2')) return res;
        const body = res.body;
        return { ...res, body: { cancel: () => body.cancel(), async *[Symbol.asyncIterator]() { yield* body; read(); } } };
      },
    };
    const big = JSON.stringify({ ID: 6, S: 'z'.repeat(10_000) });
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 3), '@odata.nextLink': `${origin}/svc/P2` }),
      '/svc/P2': (res) => json(res, `{"value":[{"ID":4},{"ID":5},${big},{"ID":7}]}`),
    });
    origin = server.origin;
    const items = [];
    const od = client(server, { maxRecordBytes: 5000, http: { retry: false, transport } });
    for await (const item of od.from<{ ID: number }>('P').stream()) {
      items.push(item);
      // Stay on page 1 until all of page 2 is in.
      if (items.length === 1) await page2Read;
    }
    await transport.close();
    expect(ids(items)).toEqual([1, 2, 3, 4, 5]);
    const error = items.at(-1)!.error as PageError;
    expect(error).toBeInstanceOf(PageError);
    expect(error.cause).toBeInstanceOf(ResponseSizeError);
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/P', '/svc/P2']);
  });
});
