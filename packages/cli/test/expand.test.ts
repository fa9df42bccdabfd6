import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATEGORY_NAMES, productRow, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { parseCSV } from './helpers.js';

let cli: SluiceCLI;
let srv: ODataTestServer;
beforeAll(async () => {
  [cli, srv] = await Promise.all([sluiceCLI(), startODataServer({ products: 20 })]);
});
afterAll(() => srv.close());

const lastURL = (part: string): string => decodeURIComponent(srv.requests.filter((q) => q.url.includes(part)).at(-1)!.url);

describe('sluice --expand with nested options and --select through an expansion', () => {
  it('v4: nested $select, $filter, $orderby and $top go to the service as written', async () => {
    const r = await cli.run(['export', srv.v4, 'Categories', '--expand', "Products($select=ID,Name;$filter=ID le 10;$orderby=ID desc;$top=2)", '--top', '1', '-q']);
    expect(r.code).toBe(0);
    expect(lastURL('/Categories')).toContain('$expand=Products($filter=ID le 10;$select=ID,Name;$orderby=ID desc;$top=2)');
    expect(JSON.parse(r.stdout)).toEqual({ ID: 1, Name: CATEGORY_NAMES[0], Products: [{ ID: 6, Name: productRow(6).Name }, { ID: 1, Name: productRow(1).Name }] });
  });

  it('v4: --select Category/Name with --expand Category is a CSV column Category/Name ($expand=Category($select=Name))', async () => {
    const r = await cli.run(['export', srv.v4, 'Products', '-f', 'csv', '--select', 'ID,Category/Name', '--expand', 'Category', '--top', '3', '-q']);
    expect(r.code).toBe(0);
    expect(lastURL('/Products')).toContain('$select=ID&$expand=Category($select=Name)');
    expect(parseCSV(r.stdout)).toEqual([['ID', 'Category/Name'], ...[1, 2, 3].map((id) => [String(id), CATEGORY_NAMES[productRow(id).CategoryID - 1]!])]);
  });

  it('v2: the same flags give $select=ID,Category/Name&$expand=Category, as v2 writes it, found out with --version auto', async () => {
    const r = await cli.run(['export', srv.v2, 'Products', '-f', 'csv', '--select', 'ID,Category/Name', '--expand', 'Category', '--top', '2', '-q']);
    expect(r.code).toBe(0);
    expect(lastURL('/Products')).toContain('$select=ID,Category/Name&$expand=Category');
    expect(parseCSV(r.stdout)).toEqual([['ID', 'Category/Name'], ...[1, 2].map((id) => [String(id), CATEGORY_NAMES[productRow(id).CategoryID - 1]!])]);
  });

  it('a to-many expansion gives a JSON array of the related values in the cell', async () => {
    const r = await cli.run(['export', srv.v4, 'Categories', '-f', 'csv', '--select', 'ID,Products/ID', '--expand', 'Products($top=3)', '--top', '2', '-q']);
    expect(r.code).toBe(0);
    expect(parseCSV(r.stdout)).toEqual([['ID', 'Products/ID'], ['1', '[1,6,11]'], ['2', '[2,7,12]']]);
  });

  it('refuses what it cannot read: an unknown nested option, unbalanced parentheses (exit 2, before any request)', async () => {
    const before = srv.requests.length;
    const unknown = await cli.run(['export', srv.v4, 'Products', '--expand', 'Category($levels=2)']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('sluice: --expand does not take the option "$levels=2" (nested options: $select, $filter, $orderby, $top, $skip, $count, $expand, separated by ;)');
    const open = await cli.run(['export', srv.v4, 'Products', '--expand', 'Category($select=Name']);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('--expand has an unclosed "("');
    expect(srv.requests.length).toBe(before);
  });
});
