import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orderItemRow, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { expectedProduct } from './helpers.js';

let srv: ODataTestServer;
let cli: SluiceCLI;
beforeAll(async () => { [srv, cli] = await Promise.all([startODataServer({ products: 300 }), sluiceCLI()]); });
afterAll(() => srv.close());

describe('sluice count, get and metadata', () => {
  it('count prints the number of matching records', async () => {
    expect(await cli.run(['count', srv.v4, 'Products'])).toMatchObject({ code: 0, stdout: '300\n' });
    expect(await cli.run(['count', srv.v2, 'Products', '--filter', 'ID le 10'])).toMatchObject({ code: 0, stdout: '10\n' });
  });

  it('get prints one entity as JSON', async () => {
    const r = await cli.run(['get', srv.v4, 'Products', '7']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(expectedProduct(7));
  });

  it('get reads a composite key and types it from $metadata', async () => {
    const row = orderItemRow(6);
    const r = await cli.run(['get', srv.v4, 'OrderItems', `OrderID=${row.OrderID},ItemNo=${row.ItemNo}`]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ OrderID: row.OrderID, ItemNo: row.ItemNo });
  });

  it('get of a missing key exits 1 with the service message on one line', async () => {
    const r = await cli.run(['get', srv.v4, 'Products', '99999']);
    expect(r.code).toBe(1);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^sluice: GET .*Products\(99999\) failed with status 404/);
  });

  it('metadata prints entity sets, types, keys and navigation as a table', async () => {
    const r = await cli.run(['metadata', srv.v4]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('OData 4.0, 3 entity sets');
    expect(lines[2]).toMatch(/^ENTITY SET\s+TYPE\s+KEY\s+PROPERTIES\s+NAVIGATION$/);
    expect(lines.find((l) => l.startsWith('OrderItems'))).toMatch(/^OrderItems\s+Demo\.OrderItem\s+OrderID,ItemNo\s+\d+$/);
    expect(lines.find((l) => l.startsWith('Categories'))).toContain('Products -> Product[]');
  });

  it('metadata --json prints the same as JSON', async () => {
    const r = await cli.run(['metadata', srv.v2, '--json']);
    expect(r.code).toBe(0);
    const md = JSON.parse(r.stdout) as { version: string; entitySets: { name: string; entityType: string; key: string[] }[]; entityTypes: { name: string; properties: { name: string }[] }[] };
    expect(md.version).toBe('2.0');
    const products = md.entitySets.find((s) => s.name === 'Products')!;
    expect(products.key).toEqual(['ID']);
    // Each type once, named by the sets that use it.
    expect(md.entityTypes.filter((t) => t.name === products.entityType)).toHaveLength(1);
    expect(md.entityTypes.find((t) => t.name === products.entityType)!.properties.map((p) => p.name)).toContain('ReleaseDate');
  });
});
