import { request as httpGet } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { ENTITY_SETS } from '../src/odata/model.js';
import { compileProjection } from '../src/odata/projection.js';
import { productJsonV2, productJsonV4 } from '../src/odata/products-fast.js';
import { rowWriterV2 } from '../src/odata/serialize-v2.js';
import { rowWriterV4 } from '../src/odata/serialize-v4.js';
import { allV2, allV4, enc, getJson, ids, range, rawGet, type Json } from './odata-server-helpers.js';

describe('OData test server: faults', () => {
  let srv: ODataTestServer;
  beforeAll(async () => { srv = await startODataServer({ products: 50, pageSize: 10 }); });
  afterAll(async () => { await srv.close(); });

  const page = (k: number): string => `${srv.v4}Products${k === 0 ? '' : `?$skiptoken=${k * 10}`}`;

  it('fails page k with the status `times` times, with Retry-After, then serves it', async () => {
    srv.setFaults({ failPage: { page: 1, status: 503, times: 2, retryAfter: 1 } });
    expect((await fetch(page(0))).status).toBe(200);
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await fetch(page(1));
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as Json).error.code).toBe('ServiceUnavailable');
      expect(srv.requests.at(-1)?.url).toBe('/odata/v4/demo/Products?$skiptoken=10');
    }
    const ok = await getJson(page(1));
    expect(ok.status).toBe(200);
    expect(ids(ok.body.value as Json[])).toEqual(range(10).map((k) => 10 + k));
  });

  it('fails with the default 503 once, as SAP XML when asked, in v2 as well', async () => {
    srv.setFaults({ failPage: { page: 0, xml: true } });
    const res = await fetch(`${srv.v2}Products`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('<code>ServiceUnavailable</code>');
    expect((await fetch(`${srv.v2}Products`)).status).toBe(200);
  });

  it('resets the connection mid-body of page k, then serves it', async () => {
    srv.setFaults({ resetPage: { page: 2 } });
    const cut = await rawGet(page(2));
    expect(cut.status).toBe(200);
    expect(cut.ended).toBe('error');
    const got = Buffer.concat(cut.chunks).length;
    expect(got).toBeGreaterThan(0);
    expect(got).toBeLessThan(Number(cut.headers['content-length']));
    await expect(fetch(page(2)).then((r) => r.json())).resolves.toMatchObject({ value: expect.any(Array) });
  });

  it('truncates page k to half its JSON with a matching Content-Length, then serves it whole', async () => {
    srv.setFaults({ truncatePage: { page: 1, times: 1 } });
    const half = await rawGet(page(1));
    expect(half.ended).toBe('end');
    const bytes = Buffer.concat(half.chunks);
    expect(bytes.length).toBe(Number(half.headers['content-length']));
    const text = bytes.toString('utf8');
    expect(text.startsWith('{"@odata.context"')).toBe(true);
    expect(() => JSON.parse(text)).toThrow();
    const whole = await rawGet(page(1));
    expect(JSON.parse(Buffer.concat(whole.chunks).toString('utf8')).value).toHaveLength(10);
  });

  it('writes pages in delayed chunks of chunkBytes', async () => {
    srv.setFaults({ chunked: { chunkBytes: 256, delayMs: 2 } });
    const res = await rawGet(page(0));
    expect(res.headers['transfer-encoding']).toBe('chunked');
    expect(res.chunks.length).toBeGreaterThan(3);
    for (const c of res.chunks.slice(0, -1)) expect(c.length).toBeLessThanOrEqual(256);
    expect(JSON.parse(Buffer.concat(res.chunks).toString('utf8')).value).toHaveLength(10);
  });

  it('delays each page by latencyMs and slowFirstByteMs', async () => {
    srv.setFaults({ latencyMs: 40, slowFirstByteMs: 30 });
    const t0 = performance.now();
    await (await fetch(page(0))).text();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(65);
  });

  it('points next links at a foreign origin when asked', async () => {
    srv.setFaults({ foreignNextLink: 'http://127.0.0.1:1' });
    const { body } = await getJson(page(0));
    expect(body['@odata.nextLink']).toBe('http://127.0.0.1:1/odata/v4/demo/Products?$skiptoken=10');
    const v2 = await getJson(`${srv.v2}Products?sap-client=100`);
    expect(v2.body.d.__next).toBe('http://127.0.0.1:1/sap/opu/odata/sap/DEMO_SRV/Products?sap-client=100&$skiptoken=10');
  });

  it('answers collections as text/html when wrongContentType is set, and setFaults({}) clears all', async () => {
    srv.setFaults({ wrongContentType: true });
    const res = await fetch(page(0));
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    await res.text();
    srv.setFaults({});
    const clean = await fetch(page(0));
    expect(clean.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await clean.json()) as Json)['@odata.nextLink']).toBe(`${srv.v4}Products?$skiptoken=10`);
  });

  it('survives a client that goes away mid-page and keeps serving', async () => {
    srv.setFaults({ chunked: { chunkBytes: 64, delayMs: 5 } });
    await new Promise<void>((resolve, reject) => {
      const req = httpGet(page(0), (res) => {
        res.once('data', () => { req.destroy(); resolve(); });
      });
      req.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' ? undefined : reject(err)));
      req.end();
    });
    srv.setFaults({});
    const { status, body } = await getJson(page(1));
    expect(status).toBe(200);
    expect(body.value).toHaveLength(10);
  });

  it('closes promptly while a delayed page is pending', async () => {
    const other = await startODataServer({ products: 5, faults: { slowFirstByteMs: 300 } });
    const pending = fetch(`${other.v4}Products`).then((r) => r.status, () => 'failed');
    await new Promise<void>((resolve) => {
      const poll = (): void => { if (other.requests.length > 0) resolve(); else setImmediate(poll); };
      poll();
    });
    await other.close();
    expect(await pending).toBe('failed');
  });

  it('takes faults from the start options', async () => {
    const other = await startODataServer({ products: 5, faults: { failPage: { page: 0, status: 500 } } });
    try {
      const failed = await fetch(`${other.v4}Products`);
      expect(failed.status).toBe(500);
      expect(((await failed.json()) as Json).error.code).toBe('InternalServerError');
      expect((await fetch(`${other.v4}Products`)).status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('OData test server: a million rows', () => {
  let srv: ODataTestServer;
  beforeAll(async () => { srv = await startODataServer({ products: 1_000_000, pageSize: 1000 }); });
  afterAll(async () => { await srv.close(); });

  it('serves first, middle and last pages and counts without holding rows', async () => {
    const heapBefore = process.memoryUsage().heapUsed;
    const first = await getJson(`${srv.v4}Products?$count=true`);
    expect(first.body['@odata.count']).toBe(1_000_000);
    expect(first.body.value).toHaveLength(1000);
    expect(first.body['@odata.nextLink']).toBe(`${srv.v4}Products?$count=true&$skiptoken=1000`);
    for (let k = 0; k < 30; k++) {
      const { body } = await getJson(`${srv.v4}Products?$skiptoken=${k * 33_000}`);
      expect(body.value[0].ID).toBe(k * 33_000 + 1);
    }
    const last = await getJson(`${srv.v4}Products?$skiptoken=999000`);
    expect(last.body.value.at(-1).ID).toBe(1_000_000);
    expect(last.body['@odata.nextLink']).toBeUndefined();
    expect(await (await fetch(`${srv.v4}Products/$count`)).text()).toBe('1000000');
    const desc = await allV4(`${srv.v4}Products?$orderby=${enc('ID desc')}&$top=1500&$select=ID`);
    expect(ids(desc.rows)).toEqual(range(1500).map((k) => 1_000_001 - k));
    // a stored million rows would take hundreds of MB; computed rows leave only page garbage
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('OData test server: page cache', () => {
  it('serves the same pages from its cache, keyed by query, number format and next-link origin', async () => {
    const plain = await startODataServer({ products: 120, pageSize: 25 });
    const cached = await startODataServer({ products: 120, pageSize: 25, cacheBytes: 1 << 20 });
    try {
      const want = await allV4(`${plain.v4}Products?$count=true`);
      for (let round = 0; round < 2; round++) {
        const got = await allV4(`${cached.v4}Products?$count=true`);
        expect(got.rows).toEqual(want.rows);
        expect(got.pages.map((p) => p['@odata.count'])).toEqual(want.pages.map((p) => p['@odata.count']));
      }
      const ieee = await getJson(`${cached.v4}Products?$count=true`, { accept: 'application/json;IEEE754Compatible=true' });
      expect(typeof ieee.body.value[0].Stock).toBe('string');
      cached.setFaults({ foreignNextLink: 'http://127.0.0.1:1' });
      expect((await getJson(`${cached.v4}Products?$count=true`)).body['@odata.nextLink']).toMatch(/^http:\/\/127\.0\.0\.1:1\//);
      const v2 = await allV2(`${cached.v2}Products?$skiptoken=100`);
      expect(ids(v2.rows)).toEqual(range(20).map((k) => 100 + k));
    } finally {
      await plain.close();
      await cached.close();
    }
  });
});

describe('OData test server: fast Products writer', () => {
  it('renders exactly what the generic writers render, in v4 (both number modes) and v2', () => {
    const set = ENTITY_SETS.get('Products');
    if (!set) throw new Error('no Products');
    const sizes = { products: 2_000_000 };
    const proj = compileProjection(set, undefined, undefined, 4, sizes);
    const plain = rowWriterV4(proj, sizes, false);
    const ieee = rowWriterV4(proj, sizes, true);
    const root = 'http://127.0.0.1:9/sap/opu/odata/sap/DEMO_SRV/';
    const v2 = rowWriterV2(compileProjection(set, undefined, undefined, 2, sizes), sizes, root);
    const indexes = [...range(3000), 65_535, 65_536, 999_999, 1_000_000, 1_999_999];
    for (const i of indexes) {
      const row = set.row(i);
      expect(productJsonV4(i, false)).toBe(plain(row));
      expect(productJsonV4(i, true)).toBe(ieee(row));
      expect(productJsonV2(i, root)).toBe(v2(row));
    }
  });
});
