import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '@sluice/core';
import { startODataServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import { BatchFormatError, createODataClient, ODataError, PreconditionFailedError, ReadOnlyQueryError } from '../src/index.js';

interface Order { ID: number; Customer: string; Status: string }
interface Product { ID: number; Name: string }

const kit = useWriteServer();
const batches = () => kit.server().requests.filter((r) => r.url.includes('$batch'));

describe.each([['4.0', 'multipart'], ['2.0', 'multipart'], ['4.0', 'json']] as const)('$batch, OData %s %s', (version, format) => {
  it('answers reads and a changeset with Content-ID references in request order, in one request', async () => {
    const od = kit.client(version);
    const before = batches().length;
    const b = od.batch();
    const product = b.get(od.from<Product>('Products').key(1));
    const page = b.get(od.from<Product>('Products').top(2));
    // changeset() returns what its callback returns: here the create, used after send().
    const created = b.changeset((cs) => {
      const order = cs.create<Order>(od.from('Orders'), { Customer: `batch-${format}` });
      cs.update(order.ref(), { Status: 'Open' }, { etag: '*' });
      return order;
    });
    const missing = b.get(od.from<Order>('Orders').key(987654));
    const results = await b.send({ format });
    expect(batches().length - before).toBe(1);
    expect(results.map((r) => r.status)).toEqual([200, 200, 201, 204, 404]);
    expect(product.result.value).toMatchObject({ ID: 1 });
    expect(page.result.value).toHaveLength(2);
    expect(created.result.value).toMatchObject({ Customer: `batch-${format}` });
    expect(created.result.location).toMatch(/Orders\(\d+\)$/);
    // a failed read fails only itself
    expect(missing.result.ok).toBe(false);
    expect(missing.result.error).toBeInstanceOf(ODataError);
    expect(missing.result.error!.status).toBe(404);
    const id = (created.result.value as Order).ID;
    expect(await od.from<Order>('Orders').key(id).get()).toMatchObject({ Status: 'Open' });
  });

  it('fails every operation of a failed changeset and rolls it back', async () => {
    const od = kit.client(version);
    const count = kit.server().writes!.store.orders.size;
    const b = od.batch();
    const ok = b.get(od.from('Products').key(2));
    b.changeset((c) => {
      c.create(od.from('Orders'), { Customer: 'rolled-back' });
      c.update(od.from('Orders').key(1), { Status: 'X' }, { etag: 'W/"999"' });
    });
    const results = await b.send({ format });
    expect(results[0]!.ok).toBe(true);
    expect(ok.result.value).toMatchObject({ ID: 2 });
    expect(results.slice(1).map((r) => [r.ok, r.status])).toEqual([[false, 412], [false, 412]]);
    expect(results[1]!.error).toBeInstanceOf(PreconditionFailedError);
    expect(kit.server().writes!.store.orders.size).toBe(count);
    expect([...kit.server().writes!.store.orders.values()].some((o) => o.values['Customer'] === 'rolled-back')).toBe(false);
  });
});

describe('$batch splitting and limits', () => {
  it('splits 1,000 operations at maxOperations, keeps changesets whole and answers in order', async () => {
    const od = kit.client('4.0');
    const before = batches().length;
    const b = od.batch();
    for (let i = 0; i < 333; i++) {
      b.changeset((cs) => {
        for (let j = 0; j < 3; j++) cs.create(od.from('Orders'), { Customer: `split-${i * 3 + j}` });
      });
    }
    b.get(od.from('Products').key(3));
    expect(b.size).toBe(1000);
    const results = await b.send({ maxOperations: 100 });
    expect(results).toHaveLength(1000);
    // 33 changesets (99 operations) fit in each request: 11 requests, the last with one changeset and the read.
    expect(batches().length - before).toBe(11);
    results.slice(0, 999).forEach((r, i) => {
      expect(r.status).toBe(201);
      expect((r.value as Order).Customer).toBe(`split-${i}`);
    });
    expect(results[999]!.value).toMatchObject({ ID: 3 });
  }, 60_000);

  it('checks its options', async () => {
    const od = kit.client('4.0');
    const b = od.batch();
    b.get(od.from('Products').key(1));
    await expect(b.send({ maxOperations: 0 })).rejects.toThrow(ConfigError);
    await expect(b.send({ maxOperation: 5 } as never)).rejects.toThrow(/maxOperations/);
    expect(() => b.changeset(() => undefined)).toThrow(/at least one/);
    // An async callback would add its writes after changeset() returned: refused, and nothing added.
    const size = b.size;
    expect(() => b.changeset(async (cs) => cs.create(od.from('Orders'), { Customer: 'late' }))).toThrow(/synchronously/);
    expect(b.size).toBe(size);
    const json = kit.client('2.0').batch();
    await expect(json.send({ format: 'json' })).rejects.toThrow(/4.01/);
  });

  it('rejects a changeset write on a read-only query as a single write does, before sending', async () => {
    const od = kit.client('4.0');
    const before = batches().length;
    const orders = od.from<Order>('Orders');
    const b = od.batch();
    expect(() => b.changeset((cs) => cs.update(orders.filter('ID eq 1'), { Status: 'X' }))).toThrow(ReadOnlyQueryError);
    expect(() => b.changeset((cs) => cs.create(orders.top(1), { Customer: 'x' }))).toThrow(/create\(\) cannot be sent on a query with \$top/);
    expect(() => b.changeset((cs) => cs.replace(orders.key(1).select('ID'), { Customer: 'x' }))).toThrow(ReadOnlyQueryError);
    expect(() => b.changeset((cs) => cs.delete(orders.key(1).expand('Lines')))).toThrow(/delete\(\).*\$expand/);
    expect(b.size).toBe(0);
    b.changeset((cs) => cs.update(orders.key(1), { Status: 'Checked' }, { etag: '*' }));
    expect((await b.send()).map((r) => r.status)).toEqual([204]);
    expect(batches().length - before).toBe(1);
  });

  it('fetches a CSRF token for the batch like for any write', async () => {
    const srv = await startODataServer({ products: 3, writes: { csrf: true } });
    const od = createODataClient({ serviceURL: srv.v2, version: '2.0', http: { retry: false } });
    try {
      const b = od.batch();
      b.changeset((cs) => cs.create(od.from('Orders'), { Customer: 'csrf' }));
      const results = await b.send();
      expect(results[0]!.status).toBe(201);
      const posts = srv.requests.filter((r) => r.url.includes('$batch'));
      expect(posts.at(-1)!.headers['x-csrf-token']).toBeTruthy();
    } finally {
      await od.close();
      await srv.close();
    }
  });
});

describe('JSON batch references across atomicity groups (OData 4.01 dependsOn)', () => {
  it('a later changeset and a read refer to what an earlier changeset created', async () => {
    const od = kit.client('4.0');
    const before = batches().length;
    const b = od.batch();
    const order = b.changeset((cs) => cs.create<Order>(od.from('Orders'), { Customer: 'across' }));
    b.changeset((cs) => { cs.update(order.ref(), { Status: 'Open' }, { etag: '*' }); });
    const read = b.get<Order>(order.ref());
    const results = await b.send({ format: 'json' });
    expect(results.map((r) => [r.ok, r.status])).toEqual([[true, 201], [true, 204], [true, 200]]);
    expect(read.result.value).toMatchObject({ Customer: 'across', Status: 'Open', ID: (order.result.value as Order).ID });
    const sent = batches().slice(before);
    expect(sent).toHaveLength(1);
    const requests = (JSON.parse(sent[0]!.body) as { requests: { id: string; atomicityGroup?: string; dependsOn?: string[] }[] }).requests;
    expect(requests.map((r) => [r.atomicityGroup, r.dependsOn])).toEqual([['g1', undefined], ['g2', ['g1', '1']], [undefined, ['g1', '1']]]);
  });

  it('when the referred changeset fails, the dependent operations fail with 424 and nothing of them applies', async () => {
    const od = kit.client('4.0');
    const count = kit.server().writes!.store.orders.size;
    const b = od.batch();
    const order = b.changeset((cs) => {
      cs.update(od.from('Orders').key(1), { Status: 'X' }, { etag: 'W/"999"' });
      return cs.create<Order>(od.from('Orders'), { Customer: 'doomed' });
    });
    const dependent = b.changeset((cs) => cs.update(order.ref(), { Status: 'Open' }, { etag: '*' }));
    const read = b.get<Order>(order.ref());
    const independent = b.get(od.from<Product>('Products').key(1));
    const results = await b.send({ format: 'json' });
    expect(results.map((r) => [r.ok, r.status])).toEqual([[false, 412], [false, 412], [false, 424], [false, 424], [true, 200]]);
    expect(dependent.result.error!.status).toBe(424);
    expect(read.result.error).toBeInstanceOf(ODataError);
    expect(independent.result.value).toMatchObject({ ID: 1 });
    expect(kit.server().writes!.store.orders.size).toBe(count);
  });

  it('multipart refuses references across changesets and from reads, and no split may separate a reference from its target; nothing is sent', async () => {
    const od = kit.client('4.0');
    const before = batches().length;
    const across = od.batch();
    const order = across.changeset((cs) => cs.create(od.from('Orders'), { Customer: 'x' }));
    across.changeset((cs) => cs.delete(order.ref(), { etag: '*' }));
    await expect(across.send()).rejects.toThrow(/only inside one changeset; send with format: 'json'/);
    const reading = od.batch();
    const made = reading.changeset((cs) => cs.create(od.from('Orders'), { Customer: 'x' }));
    reading.get(made.ref());
    await expect(reading.send({ format: 'multipart' })).rejects.toThrow(ConfigError);
    await expect(across.send({ format: 'json', maxOperations: 1 })).rejects.toThrow(/raise maxOperations/);
    expect(batches().length).toBe(before);
  });
});

describe('malformed batch answers', () => {
  it('are BatchFormatErrors naming the problem', async () => {
    let body = '';
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'multipart/mixed; boundary=abc', 'odata-version': '4.0' }).end(body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const od = createODataClient({ serviceURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc/`, version: '4.0', csrf: false, http: { retry: false } });
    try {
      const send = () => {
        const b = od.batch();
        b.get(od.from('Products').key(1));
        b.get(od.from('Products').key(2));
        return b.send();
      };
      body = '--xyz\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n\r\n{}\r\n--xyz--\r\n';
      await expect(send()).rejects.toThrow(/does not contain its boundary 'abc'/);
      body = '--abc\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n\r\n{}\r\n--abc--\r\n';
      await expect(send()).rejects.toThrow(/1 parts for 2 requests/);
      body = '--abc\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 200 OK\r\n\r\n{}\r\n--abc\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 2';
      await expect(send()).rejects.toThrow(BatchFormatError);
      await expect(send()).rejects.toThrow(/truncated: part 2/);
    } finally {
      await od.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('a JSON batch atomicity group answered request by request', () => {
  it('fails every operation of the group when one failed, even one answered 201', async () => {
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.01' }).end(JSON.stringify({ responses: [
        { id: 'r1', status: 200, headers: { 'content-type': 'application/json' }, body: { ID: 1, Name: 'one' } },
        { id: '1', status: 201, headers: { 'content-type': 'application/json' }, body: { ID: 7, Customer: 'x' } },
        { id: '2', status: 412, headers: { 'content-type': 'application/json' }, body: { error: { code: 'stale', message: 'ETag does not match' } } },
      ] })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const od = createODataClient({ serviceURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc/`, version: '4.0', csrf: false, http: { retry: false } });
    try {
      const b = od.batch();
      const read = b.get(od.from<Product>('Products').key(1));
      const [created, updated] = b.changeset((cs) => [
        cs.create<Order>(od.from('Orders'), { Customer: 'x' }),
        cs.update(od.from('Orders').key(3), { Status: 'Open' }, { etag: 'W/"1"' }),
      ] as const);
      await b.send({ format: 'json' });
      expect(read.result).toMatchObject({ ok: true, status: 200, value: { ID: 1 } });
      for (const op of [created, updated]) {
        expect(op.result).toMatchObject({ ok: false, status: 412, value: undefined });
        expect(op.result.error).toBeInstanceOf(PreconditionFailedError);
        expect(op.result.error!.message).toMatch(/ETag does not match/);
      }
    } finally {
      await od.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
