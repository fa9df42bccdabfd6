import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { startServer, type TestServer } from '@sluice/testkit';
import { createClient, DecodeError, NetworkError } from '@sluice/core';
import { transports } from './transports.js';

const doc = { rows: Array.from({ length: 200 }, (_, i) => ({ id: i, name: `row ${i}` })) };
const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

describe.each(transports)('compressed responses (%s transport)', (transportName, makeTransport) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) => {
      const encoding = req.url!.slice(1);
      const raw = Buffer.from(JSON.stringify(doc));
      if (encoding === 'truncated') {
        const zipped = gzipSync(raw);
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return void res.end(zipped.subarray(0, zipped.length - 20));
      }
      const encode = encoders[encoding];
      res.writeHead(200, { 'content-type': 'application/json', ...(encode ? { 'content-encoding': encoding } : {}) });
      res.end(encode ? encode(raw) : raw);
    });
  });
  afterAll(() => server.close());

  it('asks for compression by default', async () => {
    await createClient({ baseURL: server.origin, transport: makeTransport() }).getJSON('/plain');
    expect(server.requests.at(-1)!.headers['accept-encoding']).toMatch(/gzip/);
  });

  it.each(['gzip', 'deflate', 'br'])('decodes %s bodies', async (encoding) => {
    const c = createClient({ baseURL: server.origin, transport: makeTransport() });
    expect(await c.getJSON(`/${encoding}`)).toEqual(doc);
  });

  it('a truncated compressed body is an error, not short data', async () => {
    const c = createClient({ baseURL: server.origin, transport: makeTransport(), retry: false });
    const error = await c.getJSON('/truncated').catch((e: unknown) => e);
    // undici's stream fails in zlib; fetch, like browsers, hands over the short data and JSON decoding fails.
    expect(error).toBeInstanceOf(transportName === 'undici' ? NetworkError : DecodeError);
  });
});
