import { ConfigError } from '@sluice/core';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createODataClient, DeltaSync, fromServiceModel, parseEdmx, partitionQuery, planPartitions, toServiceModel,
  type DeltaChange, type DeltaStore, type ServiceModel, type TypedODataClient,
} from '../../src/index.js';
import type { Order, TestkitService } from './testkit-service.js';

// A typed client used for real against the testkit OData server (v4 and v2), with the service model given
// ahead as a ServiceModel (what `sluice generate --runtime` writes): reads, writes and operations, and
// not one $metadata request or version detection.

let srv: ODataTestServer;
const models: Partial<Record<'2.0' | '4.0', ServiceModel>> = {};
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  srv = await startODataServer({ products: 20, writes: true });
  for (const version of ['4.0', '2.0'] as const) {
    // The model as a generated module holds it: parsed once, then plain JSON.
    const text = await (await fetch(`${version === '4.0' ? srv.v4 : srv.v2}$metadata`)).text();
    models[version] = JSON.parse(JSON.stringify(toServiceModel(parseEdmx(text)))) as ServiceModel;
  }
});
afterAll(async () => {
  for (const c of clients.splice(0)) await c.close();
  await srv.close();
});

function typed(version: '2.0' | '4.0', model: boolean): TypedODataClient<TestkitService> {
  const od = createODataClient<TestkitService>({
    serviceURL: version === '4.0' ? srv.v4 : srv.v2, http: { retry: false }, ...(model ? { metadata: models[version] } : { version }),
  });
  clients.push(od);
  return od;
}

/** The requests made since `from` that are not to the entity data or operations: $metadata, the service root. */
const overhead = (from: number): string[] =>
  srv.requests.slice(from).map((r) => r.url).filter((u) => u.includes('$metadata') || /\/(v2|v4|odata)[^/]*\/?(\?.*)?$/.test(u));

describe('typed client against the testkit OData server, model given ahead', () => {
  it('v4: reads with select, filter, orderBy, key, expand and navigation; no $metadata or detection request', async () => {
    const start = srv.requests.length;
    const od = typed('4.0', true);
    expect(od.version).toBe('4.0');
    const cheap = await od.from('Products').select('ID', 'Name', 'Price').filter((f) => f.and(f.le('Price', 500), f.contains('Name', 'Product'))).orderBy('Price desc').top(3).list();
    expect(cheap.map((p) => p.ID)).toEqual([6, 18, 5]);
    expect(cheap.every((p) => Number(p.Price) <= 500 && p.Name.includes('Product'))).toBe(true);
    expect(Object.keys(cheap[0]!).sort()).toEqual(['ID', 'Name', 'Price']);
    const product = await od.from('Products').key(2).expand('Category', { select: ['Name'] }).get();
    expect(product.ID).toBe(2);
    expect(typeof product.Category?.Name).toBe('string');
    const category = await od.from('Products').key(2).nav('Category').get();
    expect(category.ID).toBe(product.CategoryID);
    const inCategory = await od.from('Categories').key(category.ID).navMany('Products').select('ID').list();
    expect(inCategory.map((p) => p.ID)).toContain(2);
    const inCategoryByName = await od.from('Products').filter((f) => f.eq('Category/Name', category.Name)).select('ID').orderBy('Category/Name', 'ID').list();
    expect(inCategoryByName.map((p) => p.ID)).toEqual(inCategory.map((p) => p.ID).sort((a, b) => a - b));
    const item = await od.from('OrderItems').key({ OrderID: 2, ItemNo: 'B' }).get();
    expect(item).toMatchObject({ OrderID: 2, ItemNo: 'B' });
    expect(overhead(start)).toEqual([]);
  });

  it('v4: an Int64, a Decimal and a date compared as strings are written as typed literals by the model', async () => {
    const od = typed('4.0', true);
    const q = od.from('Products').filter((f) => f.and(f.ge('Stock', '0'), f.le('Price', '1000'), f.lt('ReleaseDate', '2100-01-01T00:00:00Z')));
    expect(decodeURIComponent(q.toURL())).toContain('$filter=Stock ge 0 and Price le 1000 and ReleaseDate lt 2100-01-01T00:00:00Z');
    expect((await q.top(2).list())).toHaveLength(2);
    // Without the model the same strings are string literals, which the service refuses.
    const bare = typed('4.0', false).from('Products').filter((f) => f.ge('Stock', '0'));
    expect(decodeURIComponent(bare.toURL())).toContain("$filter=Stock ge '0'");
  });

  it('v4: create, update, bound and unbound actions and functions, delete', async () => {
    const start = srv.requests.length;
    const od = typed('4.0', true);
    const created = await od.from('Orders').create({ Customer: 'Typed', Amount: '12.50', Quantity: '3', Lines: [{ Product: 'Ale', Qty: 2 }] });
    const id = created.value!.ID;
    expect(created.value).toMatchObject({ Customer: 'Typed', Amount: '12.50', Quantity: '3' });
    const updated = await od.from('Orders').key(id).update({ Status: 'Checked' }, { etag: created.etag! });
    expect(updated.status).toBeLessThan(300);
    const lines = await od.from('Orders').key(id).navMany('Lines').list();
    expect(lines.map((l) => [l.Product, l.Qty])).toEqual([['Ale', 2]]);
    const order = await od.from('Orders').key(id).get();
    expect(order.Status).toBe('Checked');
    const approved = await od.from('Orders').key(id).action('Demo.Approve', { Comment: 'typed' }).execute({ etag: order });
    expect(approved.value?.Status).toBe('Approved');
    expect(JSON.parse(srv.requests.at(-1)!.body)).toEqual({ Comment: 'typed' });
    const total = await od.from('Orders').function('Demo.TotalAmount').execute();
    expect(Number(total)).toBeGreaterThanOrEqual(12.5);
    expect(await od.function('Echo', { Text: "it's", Count: 2 }).execute()).toBe("it's|2");
    const job = await od.action('StartJob', { Polls: 0 }).execute();
    expect(job.value?.Outcome).toBe('Succeeded');
    await od.from('Orders').key(id).delete({ etag: '*' });
    await expect(od.from('Orders').key(id).get()).rejects.toMatchObject({ status: 404 });
    expect(overhead(start)).toEqual([]);
  });

  it('v4: paths through to-one navigation, in lambdas too, and any/all over a to-many one reached through it, run by the server', async () => {
    const od = typed('4.0', true);
    const all = await od.from('Products').select('ID', 'Price', 'CategoryID').expand('Category').list();
    const pricey = new Set(all.filter((p) => Number(p.Price) > 900).map((p) => p.CategoryID));
    expect(pricey.size).toBeGreaterThan(0);
    // Products whose category has a product over 900: a to-many navigation reached through a to-one one.
    const q = od.from('Products').select('ID').filter((f) => f.and(f.any('Category/Products', 'p', (p) => p.gt('Price', '900')), f.ge('Category/ID', 0)))
      .orderBy('Category/Name desc', 'ID');
    // The Decimal in the lambda is written as a number literal by the model; the lambda's paths start at its variable.
    expect(decodeURIComponent(q.toURL())).toContain('$filter=Category/Products/any(p:p/Price gt 900) and Category/ID ge 0&$select=ID&$orderby=Category/Name desc,ID');
    const expected = all.filter((p) => pricey.has(p.CategoryID))
      .sort((a, b) => (b.Category?.Name ?? '').localeCompare(a.Category?.Name ?? '') || a.ID - b.ID).map((p) => p.ID);
    expect((await q.list()).map((p) => p.ID)).toEqual(expected);
    // all() the same way: categories of products all of whose category's products cost more than 0.
    const everything = await od.from('Products').select('ID').filter((f) => f.all('Category/Products', 'p', (p) => p.gt('Price', '0'))).list();
    expect(everything).toHaveLength(all.length);
    // A path through a to-one navigation inside a lambda over a to-many one.
    const name = all.find((p) => p.ID === 2)!.Category!.Name;
    const categories = await od.from('Categories').filter((f) => f.any('Products', 'p', (p) => p.and(p.eq('Category/Name', name), p.eq('ID', 2)))).list();
    expect(categories.map((c) => c.Name)).toEqual([name]);
  });

  it('v4: nested expand options shape the rows as their types say', async () => {
    const od = typed('4.0', true);
    const categories = await od.from('Categories').select('ID').orderBy('ID')
      .expand('Products', { select: ['ID', 'Name'], orderBy: ['ID desc'], top: 2, expand: { Category: { select: ['Name'] } } }).list();
    const products = categories.flatMap((c) => c.Products);
    expect(products.length).toBeGreaterThan(0);
    expect(categories.every((c) => c.Products.length <= 2 && Object.keys(c).sort().join() === 'ID,Products')).toBe(true);
    for (const p of products) {
      expect(Object.keys(p).sort()).toEqual(['Category', 'ID', 'Name']);
      const name: string | undefined = p.Category?.Name;
      expect(Object.keys(p.Category!)).toEqual(['Name']);
      expect(typeof name).toBe('string');
    }
    for (const c of categories) expect(c.Products.map((p) => p.ID)).toEqual(c.Products.map((p) => p.ID).sort((a, b) => b - a));
    const product = await od.from('Products').key(2).expand('Category', { expand: ['Products'] }).get();
    expect(product.Category?.Products.map((p) => p.ID)).toContain(2);
  });

  it('v4: typed queries go into a $batch as they are, keeping their row types', async () => {
    const od = typed('4.0', true);
    const batch = od.batch();
    const product = batch.get(od.from('Products').key(3).select('ID', 'Name'));
    const categories = batch.get(od.from('Categories').select('Name').orderBy('ID').top(2));
    let created: ReturnType<typeof batch.get> | undefined;
    batch.changeset((cs) => { created = cs.create(od.from('Orders'), { Customer: 'Batched', Amount: '1.00', Quantity: '1' }); });
    await batch.send();
    const name: string | undefined = product.result.value?.Name;
    expect(name).toBe('Product 3');
    expect(categories.result.value?.map((c) => c.Name)).toHaveLength(2);
    expect(created!.result).toMatchObject({ ok: true, status: 201, value: { Customer: 'Batched' } });
    expect(srv.requests.at(-1)!.url).toMatch(/\$batch$/);
  });

  it('v4: a typed client and its queries go where an ODataClient or a Query is taken: DeltaSync, planPartitions, partitionQuery', async () => {
    const od = typed('4.0', true);
    const saved = new Map<string, string>();
    const store: DeltaStore = { load: async (k) => saved.get(k), save: async (k, link) => { saved.set(k, link); }, clear: async (k) => { saved.delete(k); } };
    const orders = od.from('Orders').select('ID', 'Customer');
    const first: DeltaChange<Pick<Order, 'ID' | 'Customer'>>[] = [];
    for await (const change of new DeltaSync(od, orders, { store, key: 'orders' }).changes()) first.push(change);
    expect(first.length).toBeGreaterThan(0);
    expect(saved.get('orders')).toMatch(/\$deltatoken=/);
    const id = (await od.from('Orders').create({ Customer: 'Delta', Amount: '2.00', Quantity: '2' })).value!.ID;
    const next: DeltaChange<Pick<Order, 'ID' | 'Customer'>>[] = [];
    for await (const change of new DeltaSync(od, orders, { store, key: 'orders' }).changes()) next.push(change);
    expect(next).toContainEqual(expect.objectContaining({ kind: 'entity', value: expect.objectContaining({ ID: id, Customer: 'Delta' }) }));

    const base = od.from('Products').select('ID');
    const plan = await planPartitions(base, { partitions: 3 });
    expect(plan).toMatchObject({ property: 'ID', count: 20 });
    const parts = await Promise.all(plan.partitions.map((p) => partitionQuery(base, p).list()));
    const ids: number[] = parts.flat().map((r) => r.ID);
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('v2: the same typed calls, the version and function import methods taken from the model', async () => {
    const start = srv.requests.length;
    const od = typed('2.0', true);
    expect(od.version).toBe('2.0');
    const rows = await od.from('Products').select('ID', 'Stock', 'ReleaseDate').filter((f) => f.ge('Stock', '0')).top(2).list();
    expect(rows).toHaveLength(2);
    expect(decodeURIComponent(srv.requests.at(-1)!.url)).toContain('Stock ge 0L');
    // One representation on both versions: v2's /Date(ms)/ reads as the ISO text the spec's string type says.
    expect(rows.map((r) => r.ReleaseDate)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z$/), expect.any(String)]);
    expect(await od.function('Echo', { Text: 'v2', Count: 1 }).execute()).toBe('v2|1');
    expect(srv.requests.at(-1)!.method).toBe('GET');
    // v2 expands paths (no nested options): every step typed and read.
    const categories = await od.from('Categories').orderBy('ID').top(2).expand('Products/Category').list();
    expect(decodeURIComponent(srv.requests.at(-1)!.url)).toContain('$expand=Products/Category');
    const first = categories[0]!.Products[0]!;
    expect(first.Category?.ID).toBe(categories[0]!.ID);
    const { value } = await od.from('Orders').create({ Customer: 'V2', Amount: '1.00', Quantity: '1' });
    expect(value?.Customer).toBe('V2');
    expect(overhead(start)).toEqual([]);
  });
});

describe('service model', () => {
  it('round-trips: the revived model types keys and operations as the parsed one does', () => {
    const md = fromServiceModel(models['4.0']!);
    expect(md.version).toBe('4.0');
    expect(md.entitySets.get('OrderItems')?.entityType?.key).toEqual(['OrderID', 'ItemNo']);
    expect(md.entitySets.get('Orders')?.concurrency).toEqual(['ModifiedAt']);
    expect(md.entityTypes.get('Demo.Order')?.navigation.get('Lines')).toMatchObject({ type: 'Demo.OrderLine', collection: true });
    expect(md.operations.get('Demo.Approve')?.[0]).toMatchObject({ kind: 'action', bound: true });
    expect(md.operationImports.get('Echo')).toMatchObject({ kind: 'function' });
    expect(toServiceModel(md)).toEqual(models['4.0']);
  });

  it('keeps alias-qualified names', () => {
    const xml = '<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
      '<Schema Namespace="Very.Long.Name" Alias="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">' +
      '<EntityType Name="T"><Key><PropertyRef Name="K"/></Key><Property Name="K" Type="Edm.Int64" Nullable="false"/></EntityType>' +
      '<EntityContainer Name="C"><EntitySet Name="Ts" EntityType="S.T"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>';
    const model = toServiceModel(parseEdmx(xml));
    expect(model.aliases).toEqual({ 'S.T': 'Very.Long.Name.T' });
    const md = fromServiceModel(JSON.parse(JSON.stringify(model)) as ServiceModel);
    expect(md.entityTypes.get('S.T')).toBe(md.entityTypes.get('Very.Long.Name.T'));
    const od = createODataClient({ serviceURL: 'http://127.0.0.1:9/svc/', metadata: md });
    expect(od.from('Ts').key('9007199254740993').toURL()).toBe('http://127.0.0.1:9/svc/Ts(9007199254740993)');
  });

  it('a value that is not a model is a ConfigError naming the field', () => {
    const make = (metadata: unknown) => () => createODataClient({ serviceURL: 'http://127.0.0.1:9/', metadata: metadata as ServiceModel });
    expect(make({ format: 'other' })).toThrow(ConfigError);
    expect(make({ format: 'other' })).toThrow(/metadata\.format/);
    expect(make(null)).toThrow(/metadata/);
    expect(make({ ...models['4.0'], entityTypes: 'x' })).toThrow(/metadata\.entityTypes/);
    expect(make({ ...models['4.0'], entitySets: [{ name: 'X', entityType: 'Demo.Nope' }] })).toThrow(/metadata\.entitySets\.X.*Demo\.Nope/);
  });
});
