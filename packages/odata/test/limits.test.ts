import { describe, expect, it, vi } from 'vitest';
import { ItemScanner, PageError, ResponseSizeError } from '../src/index.js';
import { client, collect, ids, json, serve } from './helpers.js';

/** Writes `body` in pieces of `size` bytes, waiting for the socket to drain (a chunked response). */
async function writeChunked(res: import('node:http').ServerResponse, body: Buffer, size: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json' });
  for (let i = 0; i < body.length; i += size) {
    if (!res.write(body.subarray(i, i + size))) await new Promise((r) => res.once('drain', r));
  }
  res.end();
}

describe('record and page size', () => {
  it('reads a 64 MiB record that arrives in 64 KiB chunks', { timeout: 60_000 }, async () => {
    const blob = 'x'.repeat(64 * 1024 * 1024);
    const body = Buffer.from(`{"value":[{"ID":1,"Blob":"${blob}"},{"ID":2,"Blob":"y"}]}`);
    const server = await serve({ '/svc/P': (res) => writeChunked(res, body, 64 * 1024) });
    const rows = await client(server).from<{ ID: number; Blob: string }>('P').list();
    expect(rows.map((r) => r.ID)).toEqual([1, 2]);
    expect(rows[0]!.Blob.length).toBe(blob.length);
  });

  it('copies each byte of a record split over 1,024 chunks at most once (linear, not quadratic)', () => {
    const record = `{"ID":1,"S":"${'q'.repeat(1024 * 1024)}"}`;
    const body = Buffer.from(`{"value":[${record}]}`);
    const concat = vi.spyOn(Buffer, 'concat');
    try {
      const scanner = new ItemScanner([['value']]);
      let found: string | undefined;
      for (let i = 0; i < body.length; i += 1024) {
        const batch = scanner.push(body.subarray(i, i + 1024));
        if (batch.starts.length > 0) found = batch.buf.toString('utf8', batch.starts[0], batch.ends[0]);
      }
      expect(found).toBe(record);
      const copied = concat.mock.calls.reduce((sum, [list]) => sum + list.reduce((n, b) => n + b.length, 0), 0);
      // Copying the unfinished record again on every chunk would be about 512 MiB here.
      expect(copied).toBeLessThanOrEqual(2 * body.length);
    } finally {
      concat.mockRestore();
    }
  });

  it('joins a record split over many chunks once, giving the same ranges as a single chunk', () => {
    const text = `{"value":[{"ID":1,"S":"${'a'.repeat(5000)}"},{"ID":2},"str",3,{"ID":4,"N":[1,{"x":"]}"}]}],"@odata.nextLink":"n"}`;
    const expected = (JSON.parse(text) as { value: unknown[] }).value.length;
    for (const size of [1, 7, 100, 4096]) {
      const scanner = new ItemScanner([['value']]);
      const found: string[] = [];
      for (let i = 0; i < text.length; i += size) {
        const batch = scanner.push(Buffer.from(text.slice(i, i + size)));
        const range = (k: number): string => batch.buf.toString('utf8', batch.starts[k], batch.ends[k]);
        let k = 0;
        for (const group of batch.parsed) {
          while (k < group.after) found.push(range(k++));
          found.push(...group.values.map((v) => JSON.stringify(v)));
        }
        while (k < batch.starts.length) found.push(range(k++));
      }
      expect(found.length).toBe(expected);
      expect(found.map((f) => JSON.parse(f) as unknown)).toEqual((JSON.parse(text) as { value: unknown[] }).value);
      expect(scanner.end()['@odata.nextLink']).toBe('n');
    }
  });

  it('ends the read with ResponseSizeError past maxRecordBytes, keeping the records before it', async () => {
    const scanner = new ItemScanner([['value']], 10);
    const batch = scanner.push(Buffer.from('{"value":[{"ID":1},{"ID":2,"S":"long"},{"ID":3}]}'));
    expect(batch.starts).toHaveLength(1);
    expect(scanner.failure).toBeInstanceOf(ResponseSizeError);
    const big = JSON.stringify({ ID: 2, S: 'z'.repeat(10_000) });
    const body = Buffer.from(`{"value":[{"ID":1},${big},{"ID":3}]}`);
    const server = await serve({
      '/svc/P': (res) => writeChunked(res, body, 1000),
      '/svc/Q': (res) => json(res, body.toString()),
    });
    for (const set of ['P', 'Q']) {
      const items = await collect(client(server, { maxRecordBytes: 5000 }).from<{ ID: number }>(set).stream());
      expect(ids(items)).toEqual([1]);
      const error = items.at(-1)!.error as PageError;
      expect(error.willRetry).toBe(false);
      expect(error.cause).toBeInstanceOf(ResponseSizeError);
      expect(error.cause).toMatchObject({ limit: 'maxRecordBytes', maxBytes: 5000 });
    }
    expect(await client(server).from('P').list({ maxRecordBytes: 20_000 })).toHaveLength(3);
  });

  it('ends the read with ResponseSizeError past maxPageBytes, without resuming it', async () => {
    const body = Buffer.from(JSON.stringify({ value: Array.from({ length: 2000 }, (_, i) => ({ ID: i })) }));
    const server = await serve({ '/svc/P': (res) => writeChunked(res, body, 4096) });
    const error = await client(server).from('P').list({ maxPageBytes: 10_000 }).catch((e: unknown) => e);
    expect((error as PageError).cause).toMatchObject({ limit: 'maxPageBytes', maxBytes: 10_000 });
    expect(server.requests).toHaveLength(1);
  });
});
