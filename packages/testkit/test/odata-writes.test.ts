import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed bodies are inspected freely
type Json = Record<string, any>;

let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 5, writes: true });
});
afterAll(() => srv.close());

async function call(url: string, method = 'GET', body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; json: Json | undefined; text: string }> {
  const res = await fetch(url, {
    method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}), redirect: 'manual',
  });
  const text = await res.text();
  let json: Json | undefined;
  try { json = JSON.parse(text) as Json; } catch { json = undefined; }
  return { status: res.status, headers: res.headers, json, text };
}

const order = { Customer: 'ACME', Amount: 12.5, Quantity: 3, DeliveryDate: '2026-05-01T10:00:00Z' };

describe('OData test server: writes (v4)', () => {
  it('creates with 201 and Location, or 204 with return=minimal; ETag on both', async () => {
    const created = await call(`${srv.v4}Orders`, 'POST', order);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${srv.v4}Orders(${created.json!.ID})`);
    expect(created.json).toMatchObject({ '@odata.etag': 'W/"1"', Customer: 'ACME', Amount: 12.5, Quantity: 3, Status: 'New' });
    const minimal = await call(`${srv.v4}Orders`, 'POST', order, { prefer: 'return=minimal' });
    expect(minimal.status).toBe(204);
    expect(minimal.headers.get('odata-entityid')).toMatch(/Orders\(\d+\)$/);
    expect(minimal.headers.get('etag')).toBe('W/"1"');
  });

  it('checks types by dialect: numbers in v4 JSON, strings with IEEE754Compatible', async () => {
    expect((await call(`${srv.v4}Orders`, 'POST', { ...order, Amount: '12.50' })).status).toBe(400);
    const ieee = await call(`${srv.v4}Orders`, 'POST', { ...order, Amount: '12.50', Quantity: '9007199254740993' }, {
      'content-type': 'application/json;IEEE754Compatible=true', accept: 'application/json;IEEE754Compatible=true',
    });
    expect(ieee.status).toBe(201);
    expect(ieee.text).toContain('"Quantity":"9007199254740993"');
    expect((await call(`${srv.v4}Orders`, 'POST', { ...order, Nope: 1 })).json!.error.target).toBe('Nope');
    expect((await call(`${srv.v4}Orders`, 'POST', { ...order, Amount: 1.234 })).status).toBe(400);
  });

  it('updates under If-Match: 428 without, 412 with a stale ETag (and the current one), 204 with the right one', async () => {
    const { json } = await call(`${srv.v4}Orders`, 'POST', order);
    const url = `${srv.v4}Orders(${json!.ID})`;
    expect((await call(url, 'PATCH', { Status: 'X' })).status).toBe(428);
    const ok = await call(url, 'PATCH', { Status: 'Open' }, { 'if-match': 'W/"1"' });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('etag')).toBe('W/"2"');
    const stale = await call(url, 'PATCH', { Status: 'Y' }, { 'if-match': 'W/"1"' });
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe('W/"2"');
    expect((await call(url, 'GET', undefined, { 'if-none-match': 'W/"2"' })).status).toBe(304);
    const replaced = await call(url, 'PUT', { Customer: 'New' }, { 'if-match': '*', prefer: 'return=representation' });
    expect(replaced.json).toMatchObject({ Customer: 'New', Status: 'New', Amount: 0, DeliveryDate: null });
    expect((await call(url, 'DELETE', undefined, { 'if-match': 'W/"3"' })).status).toBe(204);
    expect((await call(url)).status).toBe(404);
  });

  it('deep-inserts lines and expands them', async () => {
    const { json } = await call(`${srv.v4}Orders`, 'POST', { ...order, Lines: [{ Product: 'A', Qty: 1 }, { Product: 'B', Qty: 2 }] });
    expect(json!.Lines).toHaveLength(2);
    const lines = await call(`${srv.v4}Orders(${json!.ID})/Lines`);
    expect(lines.json!.value.map((l: Json) => l.Product)).toEqual(['A', 'B']);
  });

  it('runs bound and unbound actions and functions, with parameter aliases', async () => {
    const { json } = await call(`${srv.v4}Orders`, 'POST', order);
    const approved = await call(`${srv.v4}Orders(${json!.ID})/Demo.Approve`, 'POST', { Comment: 'ok' });
    expect(approved.json).toMatchObject({ Status: 'Approved', '@odata.etag': 'W/"2"' });
    expect((await call(`${srv.v4}Echo(Text='O''Brien, %2F',Count=2)`)).json!.value).toBe("O'Brien, /|2");
    expect((await call(`${srv.v4}Echo(Text=@t,Count=@c)?@t='a%26b'&@c=7`)).json!.value).toBe('a&b|7');
    expect((await call(`${srv.v4}Orders/Demo.TotalAmount()`)).status).toBe(200);
    expect((await call(`${srv.v4}Orders/Demo.CloseAll`, 'POST', {})).json!.value).toBeGreaterThan(0);
  });

  it('answers StartJob with 202 and a monitor: status style, then OData style with 303, and cancellation', async () => {
    const started = await call(`${srv.v4}StartJob`, 'POST', { Polls: 1, RetryAfter: 0 }, { prefer: 'respond-async' });
    expect(started.status).toBe(202);
    const monitor = started.headers.get('location')!;
    expect((await call(monitor)).json).toEqual({ Status: 'Running' });
    const done = await call(monitor);
    expect(done.json).toEqual({ Status: 'Succeeded', ResultURL: `${monitor}/result` });
    expect((await call(done.json!.ResultURL)).json).toMatchObject({ JobID: expect.any(Number), Outcome: 'Succeeded' });
    const odata = (await call(`${srv.v4}StartJob`, 'POST', { Polls: 1, Monitor: 'odata-303', Async: true })).headers.get('location')!;
    expect((await call(odata)).status).toBe(202);
    const redirect = await call(odata);
    expect(redirect.status).toBe(303);
    expect(redirect.headers.get('location')).toBe(`${odata}/result`);
    const cancel = (await call(`${srv.v4}StartJob`, 'POST', { Polls: 5, Async: true })).headers.get('location')!;
    expect((await call(cancel, 'DELETE')).status).toBe(204);
    expect((await call(cancel)).json).toEqual({ Status: 'Cancelled' });
    expect((await call(`${srv.v4}StartJob`, 'POST', { Outcome: 'Failed' })).status).toBe(500);
  });

  it('lists the writable sets and operations in $metadata', async () => {
    const xml = (await call(`${srv.v4}$metadata`)).text;
    expect(xml).toContain('<EntitySet Name="Orders"');
    expect(xml).toContain('<ActionImport Name="StartJob"');
    expect(JSON.parse((await call(`${srv.v4}$metadata?$format=json`)).text).Demo.Order.$Key).toEqual(['ID']);
  });
});

describe('OData test server: writes (v2, SAP style)', () => {
  const v2order = { Customer: 'ACME', Amount: '12.50', Quantity: '3', DeliveryDate: '/Date(1777629600000)/' };

  it('creates, merges (also tunnelled through POST), and refuses v4 number shapes', async () => {
    const created = await call(`${srv.v2}Orders`, 'POST', { ...v2order, Lines: { results: [{ Product: 'A', Qty: 1 }] } });
    expect(created.status).toBe(201);
    expect(created.json!.d.__metadata.etag).toBe('W/"1"');
    expect(created.json!.d.Lines.results).toHaveLength(1);
    const url = `${srv.v2}Orders(${created.json!.d.ID})`;
    expect((await call(url, 'MERGE', { Status: 'A' }, { 'if-match': 'W/"1"' })).status).toBe(204);
    expect((await call(url, 'POST', { Status: 'B' }, { 'if-match': 'W/"2"', 'x-http-method': 'MERGE' })).status).toBe(204);
    expect((await call(url)).json!.d).toMatchObject({ Status: 'B', Amount: '12.50', DeliveryDate: '/Date(1777629600000)/' });
    expect((await call(`${srv.v2}Orders`, 'POST', { ...v2order, Amount: 12.5 })).status).toBe(400);
  });

  it('calls function imports with the method $metadata declares', async () => {
    expect((await call(`${srv.v2}Echo?Text='x%27%27y'&Count=3`)).json).toEqual({ d: { Echo: "x'y|3" } });
    expect((await call(`${srv.v2}Echo?Text='x'&Count=3`, 'POST')).status).toBe(405);
    const { json } = await call(`${srv.v2}Orders`, 'POST', v2order);
    expect((await call(`${srv.v2}ApproveOrder?ID=${json!.d.ID}&Comment='fine'`, 'POST')).json!.d.Status).toBe('Approved');
    expect((await call(`${srv.v2}StartJob?Polls=0&Async=true`, 'POST')).status).toBe(202);
    expect((await fetch(`${srv.v2}$metadata`).then((r) => r.text()))).toContain('m:HttpMethod="POST"');
  });
});

describe('OData test server: CSRF and session', () => {
  it('behaves like an ABAP gateway: token fetch with a session cookie, 403 Required without it', async () => {
    const gw = await startODataServer({ products: 1, writes: { csrf: true } });
    try {
      expect((await call(`${gw.v2}Orders`, 'POST', {})).headers.get('x-csrf-token')).toBe('Required');
      const fetched = await fetch(gw.v2, { method: 'HEAD', headers: { 'x-csrf-token': 'Fetch' } });
      const token = fetched.headers.get('x-csrf-token')!;
      const cookie = fetched.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const ok = await call(`${gw.v2}Orders`, 'POST', { Customer: 'A', Amount: '1', Quantity: '1' }, { 'x-csrf-token': token, cookie });
      expect(ok.status).toBe(201);
      expect((await call(`${gw.v2}Orders`, 'POST', {}, { 'x-csrf-token': token })).status).toBe(403);
      gw.writes!.csrf!.expireTokens();
      expect((await call(`${gw.v2}Orders`, 'POST', {}, { 'x-csrf-token': token, cookie })).status).toBe(403);
      expect(gw.writes!.csrf!.fetches).toBe(1);
      gw.writes!.loginPage = true;
      const login = await call(`${gw.v2}Orders`);
      expect(login.status).toBe(200);
      expect(login.headers.get('content-type')).toMatch(/text\/html/);
    } finally {
      await gw.close();
    }
  });
});
