// A generated typed client on the interop CAP service over OData v4, with the service model given ahead (a
// ServiceModel, what `sluice generate --runtime` writes): createODataClient<Service>() typed by generated/cap-v4.ts
// (`sluice generate` output, checked current by generated-client.test.ts) reads through composite keys and
// navigation, writes with a deep insert and ETags, and calls a bound and an unbound action and functions.
import { describe, expect, it } from 'vitest';
import { createODataClient, parseEdmx, toServiceModel, type ServiceModel, type TypedODataClient } from '@sluice/odata';
import { useCapServer, type CapServer } from './support/cap-server.js';
import type { Service as InteropService } from './generated/cap-v4.js';

const cap = useCapServer();
let model: ServiceModel | undefined;

async function typed(server: CapServer): Promise<TypedODataClient<InteropService>> {
  // What `sluice generate --runtime` would hold: the parsed model as JSON.
  model ??= JSON.parse(JSON.stringify(toServiceModel(parseEdmx(await (await fetch(`${server.v4}$metadata`)).text())))) as ServiceModel;
  return createODataClient<InteropService>({ serviceURL: server.v4, metadata: model, http: { retry: false, timeout: 30_000 } });
}

describe('CAP v4: a generated typed client', () => {
  it('reads: select, filter by typed values, orderBy, expand, composite key, navigation', async () => {
    const od = await typed(cap());
    expect(od.version).toBe('4.0');
    const parts = await od.from('Parts').select('ID', 'name', 'stock')
      .filter((f) => f.and(f.ge('stock', '40'), f.startswith('name', 'S'))).orderBy('ID desc').list();
    // CAP adds the key and the ETag property to $select: the rows hold at least what the type says.
    expect(parts.map((p) => [p.ID, p.name, p.stock])).toEqual([[4, 'Spanner 13 mm', '9007199254740993'], [3, 'Spanner 10 mm', '75']]);
    const withSupplier = await od.from('Parts').key(1).expand('supplier', { select: ['name'] }).expand('notes').get();
    expect(withSupplier.supplier?.name).toBe('Acme Valves');
    expect(withSupplier.notes.map((n) => n.text).sort()).toEqual(['fragile', 'keep dry']);
    const bin = await od.from('Bins').key({ plant: '1000', number: 2 }).get();
    expect(bin.label).toBe('A-02');
    const supplier = await od.from('Bins').key({ plant: '2000', number: 1 }).nav('part').nav('supplier').get();
    expect(supplier.name).toBe("O'Neil Tools");
    const berlin = await od.from('Suppliers').filter((f) => f.eq('city', 'Berlin')).expand('parts', { select: ['ID'] }).orderBy('ID').list();
    expect(berlin.map((s) => [s.ID, s.parts.map((p) => p.ID).sort()])).toEqual([[1, [3, 4]], [3, [2]]]);
  });

  it('writes: create with a deep insert, update with the ETag, delete', async () => {
    const od = await typed(cap());
    const created = await od.from('Parts').create({ ID: 300, name: 'Typed hose', supplier_ID: 1, price: '2.00', stock: '5', notes: [{ text: 'typed' }] });
    expect(created.value).toMatchObject({ ID: 300, name: 'Typed hose', price: '2.00', stock: '5' });
    const notes = await od.from('Parts').key(300).navMany('notes').select('text').list();
    expect(notes.map((n) => n.text)).toEqual(['typed']);
    const updated = await od.from('Parts').key(300).update({ price: '2.50' }, { etag: created.value! });
    expect(updated.etag).toBeDefined();
    expect((await od.from('Parts').key(300).select('price').get()).price).toBe('2.50');
    await od.from('Parts').key(300).delete({ etag: updated.etag! });
    await expect(od.from('Parts').key(300).get()).rejects.toMatchObject({ status: 404 });
  });

  it('operations: the bound action with its ETag, the unbound action, a collection and an Int64 function', async () => {
    const od = await typed(cap());
    const part = await od.from('Parts').key(5).get();
    const restocked = await od.from('Parts').key(5).action('InteropService.restock', { quantity: 7 }).execute({ etag: part });
    expect(restocked.value?.stock).toBe(String(BigInt(part.stock ?? '0') + 7n));
    const renamed = await od.action('renameSupplier', { ID: 2, name: 'Acme Valves & Co' }).execute();
    expect(renamed.value).toBe(2); // the number of the supplier's parts
    const cheap = await od.function('partsIn', { city: 'Berlin', maxPrice: '8' }).execute();
    expect(cheap.map((p) => p.ID).sort()).toEqual([2, 3]);
    expect(await od.function('stockOf', { ID: 4 }).execute()).toBe('9007199254740993');
  });
});
