// Exact Int64/Decimal beyond single and collection reads: write answers, $batch parts (multipart and JSON),
// action and function results and delta pages of a v4 service that ignores IEEE754Compatible=true (as SAP
// CAP does without its feature flag) are parsed from their digits too.
import type { ServerResponse } from 'node:http';
import { startServer, type TestServer } from '@sluice/testkit';
import { DecodeError, type SluiceEvent } from '@sluice/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsyncPoller, createODataClient, DeltaSync, type DeltaChange, type ODataClient } from '../src/index.js';
import { memberText } from '../src/batch/json.js';
import { itemEdmx } from './fixtures/item-edmx.js';

const EDMX = itemEdmx(
  '<Action Name="Copy"><ReturnType Type="S.Item"/></Action><Function Name="Biggest"><ReturnType Type="Edm.Int64"/></Function><Function Name="Cheapest"><ReturnType Type="Collection(S.Item)"/></Function>',
  '<ActionImport Name="Copy" Action="S.Copy"/><FunctionImport Name="Biggest" Function="S.Biggest"/><FunctionImport Name="Cheapest" Function="S.Cheapest"/>',
);

// Numbers as a service without IEEE754Compatible writes them: JSON.parse would round ID and Price.
const ENTITY = '{"@odata.context":"$metadata#Items/$entity","ID":9007199254740993,"Price":0.3000000000000000444,"Qty":1}';
const EXACT = { ID: '9007199254740993', Price: '0.3000000000000000444', Qty: 1 };
const COLLECTION = `{"@odata.context":"$metadata#Items","value":[${ENTITY.replace(/"@odata.context":"[^"]*",/, '')}]}`;
const PLAIN = 'application/json;odata.metadata=minimal';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'odata-version': '4.0' });
  res.end(body);
}

async function service(): Promise<ODataClient> {
  const server = await startServer((req, res, sent) => {
    const url = req.url ?? '';
    if (url === '/svc/$metadata') return send(res, 200, 'application/xml', EDMX);
    if (url === '/svc/$batch' && /json/.test(req.headers['content-type'] ?? '')) {
      const ids = (JSON.parse(sent) as { requests: { id: string }[] }).requests.map((r) => r.id);
      return send(res, 200, 'application/json', `{"responses":[{"id":"${ids[0]}","status":200,"headers":{"content-type":"${PLAIN}"},"body":${ENTITY}},` +
        `{"id":"${ids[1]}","status":200,"headers":{"content-type":"${PLAIN}"},"body":${COLLECTION}}]}`);
    }
    if (url === '/svc/$batch') {
      const part = (json: string) => ['--b', 'Content-Type: application/http', '', 'HTTP/1.1 200 OK', `Content-Type: ${PLAIN}`, '', json];
      return send(res, 200, 'multipart/mixed; boundary=b', [...part(ENTITY), ...part(COLLECTION), '--b--', ''].join('\r\n'));
    }
    if (url === '/svc/Items' && req.method === 'POST') return send(res, 201, PLAIN, ENTITY);
    if (url === '/svc/Items(9007199254740993)') return send(res, 200, PLAIN, ENTITY);
    if (url === '/svc/Copy') return send(res, 200, PLAIN, ENTITY);
    if (url === '/svc/Biggest()') return send(res, 200, PLAIN, '{"@odata.context":"$metadata#Edm.Int64","value":9007199254740993}');
    if (url === '/svc/Cheapest()') return send(res, 200, PLAIN, COLLECTION);
    if (url === '/svc/Items' && /track-changes/.test(String(req.headers['prefer']))) {
      return send(res, 200, PLAIN, COLLECTION.replace(/}$/, ',"@odata.deltaLink":"Items?$deltatoken=1"}'));
    }
    if (url === '/svc/Items?$deltatoken=1') {
      return send(res, 200, PLAIN, '{"value":[{"@removed":{"reason":"deleted"},"ID":9007199254740995},{"ID":9007199254740997,"Price":1.10,"Qty":2}],"@odata.deltaLink":"Items?$deltatoken=2"}');
    }
    send(res, 404, 'application/json', JSON.stringify({ error: { code: 'NotFound', message: `${req.method} ${url}` } }));
  });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true, http: { retry: false } });
  clients.push(od);
  return od;
}

describe('exact Int64/Decimal in answers other than reads (v4 without IEEE754Compatible)', () => {
  it('create() and update() answers', async () => {
    const od = await service();
    const events: SluiceEvent[] = [];
    od.http.events.on((e) => { if (e.type === 'odata.precision.unsafe') events.push(e); });
    const items = od.from<Record<string, unknown>>('Items');
    expect((await items.create({ Qty: 1 })).value).toEqual(EXACT);
    expect((await items.key('9007199254740993').update({ Qty: 1 }, { prefer: 'representation' })).value).toEqual(EXACT);
    expect(events).toEqual([expect.objectContaining({ reason: 'content-type' })]);
  });

  it.each(['multipart', 'json'] as const)('$batch parts (%s): an entity and a collection', async (format) => {
    const od = await service();
    const batch = od.batch();
    const one = batch.get(od.from('Items').key('9007199254740993'));
    const all = batch.get(od.from('Items'));
    await batch.send({ format });
    expect(one.result.value).toEqual(EXACT);
    expect(all.result.value).toEqual([EXACT]);
  });

  it('action and function results: an entity, an Int64 value, a collection of entities', async () => {
    const od = await service();
    expect((await od.action('Copy').execute()).value).toEqual(EXACT);
    expect(await od.function('Biggest').execute()).toBe('9007199254740993');
    expect(await od.function('Cheapest').execute()).toEqual([EXACT]);
  });

  it('delta pages: changed entities and removals named by key', async () => {
    const od = await service();
    let link: string | undefined;
    const store = { load: () => Promise.resolve(link), save: (_k: string, l: string) => { link = l; return Promise.resolve(); }, clear: () => Promise.resolve() };
    const sync = new DeltaSync(od, od.from<Record<string, unknown>>('Items'), { store });
    const read = async (): Promise<DeltaChange<Record<string, unknown>>[]> => {
      const out: DeltaChange<Record<string, unknown>>[] = [];
      for await (const change of sync.changes()) out.push(change);
      return out;
    };
    expect(await read()).toEqual([{ kind: 'entity', value: EXACT }]);
    expect(await read()).toEqual([
      { kind: 'removed', id: 'Items(9007199254740995)', key: { ID: '9007199254740995' }, reason: 'deleted' },
      { kind: 'entity', value: { ID: '9007199254740997', Price: '1.10', Qty: 2 } },
    ]);
  });
});

describe('memberText (a JSON batch response body as the service wrote it)', () => {
  it('finds the top-level member, not a nested one or a string that looks like it', () => {
    const text = '{"id":"body","headers":{"body":1},"note":"\\"body\\": 2","body" : {"s":"}]\\"{","n":[1,{"a":9007199254740993}]},"status":200}';
    expect(memberText(text, 'body')).toBe('{"s":"}]\\"{","n":[1,{"a":9007199254740993}]}');
    expect(memberText(text, 'status')).toBe('200');
    expect(memberText('{"body":"x, y"}', 'body')).toBe('"x, y"');
    expect(memberText('{"status":200}', 'body')).toBeUndefined();
  });
});

describe('exact Int64 in the result an async operation hands back (v4 without IEEE754Compatible)', () => {
  it('fetched from the Location of a 303, embedded by the monitor as application/http, or in the monitor\'s own 200', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/svc/$jobs/1') { res.writeHead(303, { location: '/svc/$jobs/1/result' }).end(); return; }
      if (req.url === '/svc/$jobs/1/result') return send(res, 200, PLAIN, ENTITY);
      if (req.url === '/svc/$jobs/2') return send(res, 200, 'application/http', ['HTTP/1.1 200 OK', `Content-Type: ${PLAIN}`, '', ENTITY].join('\r\n'));
      // the OData status monitor's own 200 with the result in its body (Protocol 4.01 section 9.1.3)
      if (req.url === '/svc/$jobs/3') return send(res, 200, PLAIN, ENTITY);
      send(res, 404, 'application/json', '{"error":{"code":"NotFound","message":"no"}}');
    });
    servers.push(server);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    clients.push(od);
    for (const job of ['1', '2', '3']) {
      const done = await createAsyncPoller<Record<string, unknown>>(od, `${server.origin}/svc/$jobs/${job}`, { pollInterval: 1 }).wait();
      expect(done.value!['ID']).toBe('9007199254740993');
    }
  });
});

describe('an answer that is no JSON, read through the precision guard', () => {
  it('is a DecodeError with the URL, status and an excerpt, as any JSON read (a delta page, a single get)', async () => {
    const server = await startServer((_req, res) => send(res, 200, PLAIN, `{"value":[{"ID":1}] oops`));
    servers.push(server);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    clients.push(od);
    const store = { load: () => Promise.resolve(undefined), save: () => Promise.resolve(), clear: () => Promise.resolve() };
    const delta = await (async () => { for await (const _c of new DeltaSync(od, od.from('Items'), { store }).changes()) { /* none */ } })().catch((e: unknown) => e);
    const get = await od.from('Items').key(1).get().catch((e: unknown) => e);
    for (const error of [delta, get]) {
      expect(error).toBeInstanceOf(DecodeError);
      expect(error).toMatchObject({ status: 200, bodyExcerpt: '{"value":[{"ID":1}] oops' });
      expect((error as Error).message).toMatch(/^GET http:\/\/127\.0\.0\.1:\d+\/svc\/Items(\(1\))?: response is not valid JSON/);
    }
  });
});
