import { csrf, type SluiceEvent } from '@sluice/core';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '../src/index.js';

let srv: ODataTestServer;
let od: ODataClient | undefined;
beforeEach(async () => {
  srv = await startODataServer({ products: 2, writes: { csrf: true } });
});
afterEach(async () => {
  await od?.close();
  od = undefined;
  await srv.close();
});

const fetches = () => srv.requests.filter((r) => String(r.headers['x-csrf-token']).toLowerCase() === 'fetch');
const posts = () => srv.requests.filter((r) => r.method === 'POST');
const order = { Customer: 'ACME', Amount: '1.00', Quantity: '1' };

describe('CSRF tokens through the OData client (SAP gateway, SPEC 3.3)', () => {
  it("csrf: true fetches one token (HEAD on the service root, with its sap-client) for 50 concurrent creates", async () => {
    od = createODataClient({ serviceURL: `${srv.v2}?sap-client=100`, version: '2.0', csrf: true, http: { retry: false } });
    const results = await Promise.all(Array.from({ length: 50 }, () => od!.from('Orders').create(order)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(fetches()).toHaveLength(1);
    expect(fetches()[0]).toMatchObject({ method: 'HEAD', url: '/sap/opu/odata/sap/DEMO_SRV/?sap-client=100' });
    expect(srv.writes!.csrf!.rejections).toBe(0);
    expect(posts()).toHaveLength(50);
  });

  it("'auto' (the default) learns from the first 403 Required: one fetch for all writers, each retried exactly once", async () => {
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', http: { retry: false } });
    await Promise.all(Array.from({ length: 10 }, () => od!.from('Orders').create(order)));
    expect(fetches()).toHaveLength(1);
    expect(srv.writes!.csrf!.rejections).toBe(10);
    expect(posts()).toHaveLength(20);
    await od.from('Orders').create(order);
    expect(posts()).toHaveLength(21);
  });

  it('a token expiring mid-session is fetched again once, and each write retried once, without the caller noticing', async () => {
    const events: SluiceEvent[] = [];
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', csrf: true, http: { retry: false, onEvent: (e) => events.push(e) } });
    const created = await Promise.all(Array.from({ length: 20 }, () => od!.from('Orders').create(order)));
    srv.writes!.csrf!.expireTokens();
    const before = srv.requests.length;
    await Promise.all(created.map((c) => od!.from('Orders').key((c.value as { ID: number }).ID).update({ Status: 'Open' }, { etag: c.etag! })));
    const merges = srv.requests.slice(before).filter((r) => r.method === 'MERGE');
    expect(merges).toHaveLength(40);
    expect(fetches()).toHaveLength(2);
    expect(events.filter((e) => e.type === 'csrf.rejected')).toHaveLength(20);
  });

  it("a gateway whose 403 lost the Required header (only the XML body says 'CSRF token validation failed') is still understood", async () => {
    await srv.close();
    srv = await startODataServer({ products: 2, writes: { csrf: { requiredHeader: false, xmlRejection: true } } });
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', http: { retry: false } });
    const results = await Promise.all(Array.from({ length: 5 }, () => od!.from('Orders').create(order)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(fetches()).toHaveLength(1);
    expect(srv.writes!.csrf!.rejections).toBe(5);
    expect(posts()).toHaveLength(10);
  });

  it('reads carry neither token nor session cookie', async () => {
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', csrf: true, http: { retry: false } });
    const { value } = await od.from('Orders').create(order);
    await od.from('Orders').key((value as { ID: number }).ID).get();
    await od.from('Orders').list();
    for (const read of srv.requests.filter((r) => r.method === 'GET')) {
      expect(read.headers['x-csrf-token']).toBeUndefined();
      expect(read.headers.cookie).toBeUndefined();
    }
  });

  it('csrf: false sends no token, so the gateway refuses the write', async () => {
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', csrf: false, http: { retry: false } });
    await expect(od.from('Orders').create(order)).rejects.toMatchObject({ status: 403 });
    expect(fetches()).toHaveLength(0);
  });

  it('a given client must bring its own csrf plugin for csrf: true', async () => {
    const { createClient } = await import('@sluice/core');
    const plain = createClient({ baseURL: srv.v2 });
    expect(() => createODataClient({ serviceURL: srv.v2, client: plain, csrf: true })).toThrow(/plugins: \[csrf\(\)\]/);
    const withPlugin = createClient({ baseURL: srv.v2, plugins: [csrf({ mode: 'always' })] });
    od = createODataClient({ serviceURL: srv.v2, version: '2.0', client: withPlugin, csrf: true });
    expect((await od.from('Orders').create(order)).status).toBe(201);
    await plain.close();
    await withPlugin.close();
  });
});
