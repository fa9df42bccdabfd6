import { ConfigError, DeadlineError } from '@sluice/core';
import { startODataServer, startServer, type ODataTestServer } from '@sluice/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import {
  createODataClient, decimal, etagOf, int64, ODataError, ODataFormatError, PreconditionFailedError, PreconditionRequiredError, ReadOnlyQueryError,
} from '../src/index.js';

interface Order {
  ID: number; Customer: string; Amount: string; Quantity: string; Status: string; DeliveryDate: string | Date | null; Attachment: string | null;
}

const kit = useWriteServer();
const client = kit.client;
let srv: ODataTestServer;
beforeAll(() => {
  srv = kit.server();
});
const last = (method: string) => srv.requests.filter((r) => r.method === method).at(-1)!;

describe.each(['4.0', '2.0'] as const)('writes, OData %s', (version) => {
  it('creates, reads with the ETag, updates with If-Match, replaces and deletes', async () => {
    const od = client(version);
    const orders = od.from<Order>('Orders');
    const created = await orders.create({ Customer: 'ACME', Amount: '12.50', Quantity: '9007199254740993', DeliveryDate: new Date('2026-05-01T10:00:00Z') });
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({ Customer: 'ACME', Amount: '12.50', Quantity: '9007199254740993' });
    expect(created.etag).toBe('W/"1"');
    expect(created.location).toMatch(/Orders\(\d+\)$/);
    const id = created.value!.ID;
    const order = await orders.key(id).get();
    expect(etagOf(order)).toBe('W/"1"');
    const updated = await orders.key(id).update({ Status: 'Open' }, { etag: order });
    expect(updated.etag).toBe('W/"2"');
    expect(last(version === '4.0' ? 'PATCH' : 'MERGE').headers['if-match']).toBe('W/"1"');
    // the entity read earlier is stale now
    const stale = await orders.key(id).update({ Status: 'X' }, { etag: order }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale).toBeInstanceOf(ODataError);
    expect(stale).toMatchObject({ status: 412, currentETag: 'W/"2"' });
    const replaced = await orders.key(id).replace({ Customer: 'Other', Amount: '1', Quantity: '2' }, { etag: updated.etag! });
    expect(replaced.status).toBe(204);
    expect(await orders.key(id).get()).toMatchObject({ Customer: 'Other', Status: 'New' });
    await orders.key(id).delete({ etag: '*' });
    expect(last('DELETE').headers['if-match']).toBe('*');
    await expect(orders.key(id).get()).rejects.toMatchObject({ status: 404 });
  });

  it('sends the @odata.etag of a read entity spread into the changes', async () => {
    const orders = client(version).from<Order>('Orders');
    const { value } = await orders.create({ Customer: 'A', Amount: '1', Quantity: '1' });
    const read = await orders.key(value!.ID).get();
    await orders.key(value!.ID).update({ ...read, Status: 'Spread' });
    expect(last(version === '4.0' ? 'PATCH' : 'MERGE').headers['if-match']).toBe('W/"1"');
    expect(JSON.parse(last(version === '4.0' ? 'PATCH' : 'MERGE').body)).not.toHaveProperty('@odata.etag');
  });

  it('an update without an ETag where the service demands one is a PreconditionRequiredError', async () => {
    const orders = client(version).from<Order>('Orders');
    const { value } = await orders.create({ Customer: 'A', Amount: '1', Quantity: '1' });
    const error = await orders.key(value!.ID).update({ Status: 'Y' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PreconditionRequiredError);
    expect((error as Error).message).toMatch(/requires If-Match/);
  });

  it('deep-inserts related entities', async () => {
    const orders = client(version).from<Order>('Orders');
    const { value } = await orders.create({ Customer: 'Deep', Amount: '3', Quantity: '1', Lines: [{ Product: 'P1', Qty: 2 }, { Product: 'P2', Qty: 5 }] });
    const lines = await client(version).from('Orders').key(value!.ID).navMany<{ Product: string }>('Lines').list();
    expect(lines.map((l) => l.Product)).toEqual(['P1', 'P2']);
  });

  it('tunnels updates and deletes through POST with X-HTTP-Method', async () => {
    const orders = client(version, { tunnel: true }).from<Order>('Orders');
    const { value, etag } = await orders.create({ Customer: 'T', Amount: '1', Quantity: '1' });
    await orders.key(value!.ID).update({ Status: 'Tunnelled' }, { etag: etag! });
    const post = last('POST');
    expect(post.headers['x-http-method']).toBe(version === '4.0' ? 'PATCH' : 'MERGE');
    await orders.key(value!.ID).delete({ etag: '*' });
    expect(last('POST').headers['x-http-method']).toBe('DELETE');
  });

  it('conditional read: 304 is "not modified", a change gives the entity', async () => {
    const orders = client(version).from<Order>('Orders');
    const { value, etag } = await orders.create({ Customer: 'C', Amount: '1', Quantity: '1' });
    expect(await orders.key(value!.ID).readIfChanged(etag!)).toEqual({ modified: false, etag: 'W/"1"' });
    await orders.key(value!.ID).update({ Status: 'Z' }, { etag: etag! });
    const changed = await orders.key(value!.ID).readIfChanged(etag!);
    expect(changed).toMatchObject({ modified: true, etag: 'W/"2"', value: { Status: 'Z' } });
  });
});

describe('value encoding by EDM type', () => {
  it('v4 sends Int64 and Decimal as exact strings with IEEE754Compatible, binary as base64url', async () => {
    const od = client('4.0');
    await od.metadata();
    await od.from('Orders').create({ Customer: 'E', Amount: decimal('123456789012.25'), Quantity: int64(2n ** 62n), Attachment: new Uint8Array([251, 255]) });
    const post = last('POST');
    expect(post.headers['content-type']).toMatch(/IEEE754Compatible=true/);
    expect(JSON.parse(post.body)).toMatchObject({ Amount: '123456789012.25', Quantity: '4611686018427387904', Attachment: '-_8' });
  });

  it('v2 sends /Date(ms)/ for DateTime and strings for Int64 and Decimal', async () => {
    const od = client('2.0');
    await od.metadata();
    await od.from('Orders').create({ Customer: 'E', Amount: 10, Quantity: 5, DeliveryDate: new Date(1777629600000) });
    expect(JSON.parse(last('POST').body)).toMatchObject({ Amount: '10', Quantity: '5', DeliveryDate: '/Date(1777629600000)/' });
  });

  it('a value of the wrong type for a known property is a ConfigError and nothing is sent', async () => {
    const od = client('4.0');
    await od.metadata();
    const before = srv.requests.length;
    await expect(od.from('Orders').create({ Customer: 42 })).rejects.toThrow(/entity.Customer expects Edm.String/);
    await expect(od.from('Orders').create({ Customer: 'x', Amount: 'lots' })).rejects.toBeInstanceOf(ConfigError);
    await expect(od.from('Orders').create({ Customer: 'x', Quantity: 1.5 })).rejects.toThrow(/Quantity expects Edm.Int64/);
    await expect(od.from('Orders').create({ Customer: 'x', Nope: 1 })).rejects.toThrow(/is not a property of Demo.Order/);
    await expect(od.from('Orders').create({ Customer: null })).rejects.toThrow(/is not nullable/);
    await expect(od.from('Orders').create({ Customer: 'x', Lines: { Product: 'p' } })).rejects.toThrow(/give an array/);
    await expect(od.from('Orders').key('seven').update({ Status: 'x' }, { etag: '*' })).rejects.toBeInstanceOf(ConfigError);
    expect(srv.requests.length).toBe(before);
  });
});

describe('bad input and hostile answers', () => {
  it('a write on a read-only query is a ReadOnlyQueryError', async () => {
    const orders = client('4.0').from('Orders');
    expect(() => orders.filter('ID eq 1').create({})).toThrow(ReadOnlyQueryError);
    expect(() => orders.top(1).action('Demo.CloseAll')).toThrow(ReadOnlyQueryError);
    expect(() => orders.key(1).select('ID').update({})).toThrow(ReadOnlyQueryError);
    expect(() => orders.key(1).expand('Lines').delete()).toThrow(ReadOnlyQueryError);
  });

  it('an entity without an ETag given as etag is a ConfigError', async () => {
    await expect(client('4.0').from('Orders').key(1).update({}, { etag: {} })).rejects.toThrow(/must be an ETag string/);
  });

  it('a server error is an ODataError with code, message and target', async () => {
    const error = await client('4.0').from('Orders').create({ Customer: 'x', Bogus: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ODataError);
    expect(error).toMatchObject({ status: 400, code: 'BadRequest', target: 'Bogus' });
  });

  it('an HTML logon page answered with 200 is an ODataFormatError, for writes and reads', async () => {
    const gw = await startODataServer({ products: 1, writes: true });
    try {
      const od = createODataClient({ serviceURL: gw.v2, version: '2.0', http: { retry: false } });
      kit.track(od);
      gw.writes!.loginPage = true;
      await expect(od.from('Orders').create({ Customer: 'x' })).rejects.toThrow(/HTML page instead of OData.*session ended/);
      await expect(od.from('Orders').create({ Customer: 'x' })).rejects.toBeInstanceOf(ODataFormatError);
      await expect(od.from('Orders').key(1).get()).rejects.toBeInstanceOf(ODataFormatError);
    } finally {
      await gw.close();
    }
  });

  it('per-request headers, signal and timeout apply to writes', async () => {
    const orders = client('4.0').from('Orders');
    await orders.create({ Customer: 'H', Amount: 1, Quantity: 1 }, { headers: { 'x-trace': 't-1' }, timeout: 10_000, prefer: 'minimal' });
    expect(last('POST').headers['x-trace']).toBe('t-1');
    expect(last('POST').headers.prefer).toBe('return=minimal');
    const ac = new AbortController();
    ac.abort();
    await expect(orders.create({ Customer: 'H' }, { signal: ac.signal })).rejects.toThrow();
  });

  it('a write past its deadline ends with DeadlineError', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((r) => { release = r; });
    const slow = await startServer(async (_req, res) => { await held; res.writeHead(204).end(); });
    try {
      const od = kit.track(createODataClient({ serviceURL: `${slow.origin}/svc/`, version: '4.0', http: { retry: false } }));
      await expect(od.from('Orders').create({ Customer: 'D' }, { deadline: 100 })).rejects.toBeInstanceOf(DeadlineError);
    } finally {
      release();
      await slow.close();
    }
  });
});
