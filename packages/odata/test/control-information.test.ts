// Which control information an entity keeps, the same for every way an entity arrives: reads (one entity,
// collections), writes, actions and batch. Kept: @odata.etag and @odata.type on entities, @odata.count
// and @odata.nextLink on expanded collections, instance annotations of vocabularies. Dropped: the rest.
import { startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ENTITY = {
  '@odata.context': '$metadata#Orders/$entity',
  '@odata.metadataEtag': 'W/"m1"',
  '@odata.etag': 'W/"3"',
  '@odata.id': 'Orders(1)',
  '@odata.editLink': 'Orders(1)',
  '@odata.type': '#S.SpecialOrder',
  '@Core.Messages': [{ code: 'W1', message: 'late' }],
  ID: 1,
  Note: 'mail me at a@b.c',
  'Customer@odata.navigationLink': 'Orders(1)/Customer',
  'Customer@odata.associationLink': 'Orders(1)/Customer/$ref',
  'Price@odata.type': '#Decimal',
  'Price@Measures.ISOCurrency': 'EUR',
  Price: 9.5,
  'Lines@odata.count': 3,
  'Lines@odata.nextLink': 'Orders(1)/Lines?$skip=1',
  Lines: [{ '@odata.id': 'Lines(7)', '@odata.etag': 'W/"1"', '@odata.editLink': 'Lines(7)', ID: 7 }],
  Address: { '@odata.type': '#S.Address', City: 'Berlin' },
};

const KEPT = {
  '@odata.etag': 'W/"3"',
  '@odata.type': '#S.SpecialOrder',
  '@Core.Messages': [{ code: 'W1', message: 'late' }],
  ID: 1,
  Note: 'mail me at a@b.c',
  'Price@Measures.ISOCurrency': 'EUR',
  Price: 9.5,
  'Lines@odata.count': 3,
  'Lines@odata.nextLink': 'Orders(1)/Lines?$skip=1',
  Lines: [{ '@odata.etag': 'W/"1"', ID: 7 }],
  Address: { '@odata.type': '#S.Address', City: 'Berlin' },
};

// OData JSON 4.01: control information may come without the odata. prefix.
const SHORT = { '@context': '#Orders/$entity', '@metadataEtag': 'W/"m1"', '@etag': 'W/"3"', '@id': 'Orders(1)', ID: 1, 'Lines@count': 0, Lines: [] };
const SHORT_KEPT = { '@odata.etag': 'W/"3"', ID: 1, 'Lines@odata.count': 0, Lines: [] };

async function start(entity: Record<string, unknown>): Promise<ODataClient> {
  const { '@odata.context': _c, '@odata.metadataEtag': _m, ...record } = entity;
  const server = await startServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/svc/$batch') {
      res.writeHead(200, { 'content-type': 'multipart/mixed; boundary=b' });
      res.end(['--b', 'Content-Type: application/http', '', 'HTTP/1.1 200 OK', 'Content-Type: application/json', '', JSON.stringify(entity), '--b',
        'Content-Type: application/http', '', 'HTTP/1.1 200 OK', 'Content-Type: application/json', '', JSON.stringify({ '@odata.context': '$metadata#Orders', value: [record] }), '--b--', ''].join('\r\n'));
      return;
    }
    res.writeHead(req.method === 'POST' && url === '/svc/Orders' ? 201 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(url.startsWith('/svc/Orders?') || url === '/svc/Orders' && req.method === 'GET' ? { '@odata.context': '$metadata#Orders', value: [record, record] } : entity));
  });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
  clients.push(od);
  return od;
}

describe('control information an entity keeps', () => {
  for (const [name, entity, kept] of [['odata.-prefixed', ENTITY, KEPT], ['4.01 short names', SHORT, SHORT_KEPT]] as const) {
    it(`${name}: get(), list(), create(), update(), an action and batch parts agree`, async () => {
      const od = await start(entity);
      expect(await od.from('Orders').key(1).get()).toEqual(kept);
      expect(await od.from('Orders').list()).toEqual([kept, kept]);
      expect((await od.from('Orders').create({ ID: 1 })).value).toEqual(kept);
      expect((await od.from('Orders').key(1).update({ ID: 1 }, { prefer: 'representation' })).value).toEqual(kept);
      expect((await od.action('Copy').execute()).value).toEqual(kept);
      const batch = od.batch();
      const one = batch.get(od.from('Orders').key(1));
      const all = batch.get(od.from('Orders'));
      await batch.send();
      expect(one.result.value).toEqual(kept);
      expect(all.result.value).toEqual([kept]);
    });
  }
});

/** A v4 service answering every request with `body(url)`, written in small chunks one after the other (later chunks hold no envelope, only records). */
async function chunkedService(body: (url: string) => Buffer): Promise<ODataClient> {
  const server = await startServer(async (req, res) => {
    const bytes = body(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    for (let at = 0; at < bytes.length; at += 4096) {
      res.write(bytes.subarray(at, at + 4096));
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.end();
  });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
  clients.push(od);
  return od;
}

describe('control information in large pages (records scanned and parsed in runs, body in many chunks)', () => {
  it('removes control information wherever a record of the page holds it, and leaves records that hold none as they are', async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ '@odata.etag': `W/"${i}"`, ID: i, Mail: i % 7 === 0 ? `user${i}@example.com` : 'none' }));
    const marked = new Set([5, 1999, 2998]);
    const page = rows.map((r) => (marked.has(r.ID) ? { '@odata.id': `Items(${r.ID})`, ...r, 'Tags@odata.navigationLink': `Items(${r.ID})/Tags` } : r));
    const body = Buffer.from(JSON.stringify({ '@odata.context': '$metadata#Items', value: page }));
    const od = await chunkedService(() => body);
    expect(await od.from('Items').list()).toEqual(rows);
  });

  it('an @ at the very end of a record (a value, not a key) is read as data', async () => {
    const rows = [{ ID: 1, X: 'a@' }, { ID: 2, X: '@' }, { ID: 3, 'X@Core.Description': 'kept' }];
    const server = await startServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(JSON.stringify({ value: rows })); });
    servers.push(server);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    clients.push(od);
    expect(await od.from('Items').list()).toEqual(rows);
  });
});


describe('control information whose names are written with JSON escapes (\\u0040 for @)', () => {
  // JSON.parse reads "\u0040odata.id" as "@odata.id": the reader must treat it exactly as the unescaped name,
  // in pages scanned in runs (many records, many chunks) and in small pages alike, and in the envelope.
  const escaped = (doc: unknown): string => JSON.stringify(doc).replace(/@/g, '\\u0040');
  const rows = Array.from({ length: 2500 }, (_, i) => ({ '@odata.etag': `W/"${i}"`, ID: i, Mail: `user${i}@example.com` }));
  const page = (from: number, to: number): unknown[] => rows.slice(from, to).map((r) => ({
    '@odata.id': `Items(${r.ID})`, '@id': `Items(${r.ID})`, ...r, 'Tags@odata.navigationLink': `Items(${r.ID})/Tags`,
    'Lines@odata.count': 1, Lines: [{ '@odata.editLink': 'Lines(1)', ID: 1 }],
  }));
  const kept = rows.map((r) => ({ ...r, 'Lines@odata.count': 1, Lines: [{ ID: 1 }] }));

  for (const [name, pages] of [['large pages', [[0, 2000], [2000, 2500]]], ['small pages', [[0, 2], [2, 3]]]] as const) {
    it(`${name}: escaped annotations are removed or kept like unescaped ones, the escaped next link is followed`, async () => {
      const od = await chunkedService((url) => {
        const second = url.includes('skiptoken');
        const [from, to] = pages[second ? 1 : 0];
        return Buffer.from(escaped({ '@odata.context': '$metadata#Items', value: page(from, to), ...(second ? {} : { '@odata.nextLink': 'Items?$skiptoken=2' }) }));
      });
      const expected = kept.slice(0, pages[1][1]);
      const streamed: unknown[] = [];
      for await (const item of od.from('Items').stream()) streamed.push(item.value);
      expect(streamed).toEqual(expected);
      const batched: unknown[] = [];
      for await (const item of od.from('Items').streamBatches()) batched.push(...(item.value ?? []));
      expect(batched).toEqual(expected);
    });
  }
});

describe('OData v2: __metadata becomes the control information a v4 entity keeps', () => {
  const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0">
    <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Order"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>
      <EntityType Name="SpecialOrder" BaseType="S.Order"><Property Name="Rush" Type="Edm.Boolean"/></EntityType>
      <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="Orders" EntityType="S.Order"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;
  const plain = { __metadata: { id: 'http://h/svc/Orders(1)', uri: 'http://h/svc/Orders(1)', type: 'S.Order', etag: 'W/"1"' }, ID: 1 };
  const special = { __metadata: { id: 'http://h/svc/Orders(2)', uri: 'http://h/svc/Orders(2)', type: 'S.SpecialOrder', etag: 'W/"2"' }, ID: 2, Rush: true };

  async function v2Service(): Promise<TestServer> {
    const server = await startServer((req, res) => {
      const url = req.url ?? '';
      if (url === '/svc/$metadata') { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX); return; }
      res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json', dataserviceversion: '2.0' });
      res.end(JSON.stringify(url === '/svc/Orders' && req.method === 'GET' ? { d: { results: [plain, special] } } : { d: special }));
    });
    servers.push(server);
    return server;
  }

  it('a derived type is kept as @odata.type (as v4 minimal metadata sends it), the declared type is not; the ETag as @odata.etag', async () => {
    const server = await v2Service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true, http: { retry: false } });
    clients.push(od);
    const kept = { '@odata.etag': 'W/"2"', '@odata.type': '#S.SpecialOrder', ID: 2, Rush: true };
    expect(await od.from('Orders').list()).toEqual([{ '@odata.etag': 'W/"1"', ID: 1 }, kept]);
    expect(await od.from('Orders').key(2).get()).toEqual(kept);
    expect((await od.from('Orders').create({ ID: 2 })).value).toEqual(kept);
  });

  it('without $metadata the declared type is unknown: __metadata.type is not kept (nothing to tell a derived type by)', async () => {
    const server = await v2Service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', http: { retry: false } });
    clients.push(od);
    expect(await od.from('Orders').list()).toEqual([{ '@odata.etag': 'W/"1"', ID: 1 }, { '@odata.etag': 'W/"2"', ID: 2, Rush: true }]);
  });
});
