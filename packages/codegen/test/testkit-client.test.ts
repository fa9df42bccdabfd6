// A generated client used for real: the types sluice generates from the testkit OData server's $metadata
// (test/generated/testkit-v4.ts and -v2.ts, checked here to be what its metadata gives now) type a client
// that reads, writes and calls an action on that server, with the model module of generateRuntime().
import { readFileSync } from 'node:fs';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { createODataClient, type ServiceModel } from '@sluice/odata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateRuntime } from '../src/index.js';
import type { Order, Product, Service as V4 } from './generated/testkit-v4.js';
import type { Service as V2 } from './generated/testkit-v2.js';

let srv: ODataTestServer;
const text: Record<'v2' | 'v4', string> = { v2: '', v4: '' };
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  srv = await startODataServer({ products: 20, writes: true });
  text.v4 = await (await fetch(`${srv.v4}$metadata`)).text();
  text.v2 = await (await fetch(`${srv.v2}$metadata`)).text();
});
afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await srv.close();
});

/** The model a `--runtime` module holds: the object literal it exports. */
function runtimeModel(metadata: string): ServiceModel {
  const module = generateRuntime(metadata, { source: 'testkit' });
  return JSON.parse(/^export const model: ServiceModel = (.*);$/m.exec(module)![1]!) as ServiceModel;
}

describe('a generated client against the testkit OData server', () => {
  it('the committed types are generated from the metadata the server serves now', () => {
    for (const v of ['v4', 'v2'] as const) expect(text[v]).toBe(readFileSync(new URL(`./fixtures/testkit/${v}.xml`, import.meta.url), 'utf8'));
  });

  // What the client does with a spec (reads, keys, navigation, writes, operations, batch, v2) is tested in
  // packages/odata/test/typed/typed-client.test.ts against the same server; here: that the generated types and
  // the generateRuntime() model are what such a client needs.
  it('v4: the generated Service types reads, a create and a bound action; the generated model encodes Decimal and Int64 strings', async () => {
    const od = createODataClient<V4>({ serviceURL: srv.v4, metadata: runtimeModel(text.v4), http: { retry: false } });
    closers.push(() => od.close());
    const start = srv.requests.length;
    const cheap: Pick<Product, 'ID' | 'Name' | 'Price'>[] = await od.from('Products').select('ID', 'Name', 'Price')
      .filter((f) => f.and(f.le('Price', '500'), f.ge('Stock', '0'), f.contains('Name', 'Product'))).orderBy('Price desc').top(3).list();
    expect(cheap.map((p) => p.ID)).toEqual([6, 18, 5]);
    // Decimal and Int64 compared as the strings the types say they are: typed literals, by the model.
    expect(decodeURIComponent(srv.requests.at(-1)!.url)).toContain('Price le 500 and Stock ge 0');
    const created = await od.from('Orders').create({ Customer: 'Generated', Amount: '12.50', Quantity: '3' });
    const order: Order = created.value!;
    expect(order).toMatchObject({ Customer: 'Generated', Amount: '12.50', Quantity: '3' });
    const approved = await od.from('Orders').key(order.ID).action('Demo.Approve', { Comment: 'generated' }).execute({ etag: '*' });
    expect(approved.value?.Status).toBe('Approved');
    // The model came with the module: no $metadata request, no version detection.
    expect(srv.requests.slice(start).filter((r) => r.url.includes('$metadata'))).toEqual([]);
  });

  it('v2: the generated types say v2 dates are ISO text and a GET function import is a function, as the client reads and calls them', async () => {
    const od = createODataClient<V2>({ serviceURL: srv.v2, metadata: runtimeModel(text.v2), http: { retry: false } });
    closers.push(() => od.close());
    const rows = await od.from('Products').select('ID', 'Stock', 'ReleaseDate').filter((f) => f.ge('Stock', '0')).top(2).list();
    expect(rows).toHaveLength(2);
    const released: string = rows[0]!.ReleaseDate;
    expect(released).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/);
    expect(decodeURIComponent(srv.requests.at(-1)!.url)).toContain('Stock ge 0L');
    expect(await od.function('Echo', { Text: 'v2', Count: 1 }).execute()).toBe('v2|1');
    expect(srv.requests.at(-1)!.method).toBe('GET');
  });
});
