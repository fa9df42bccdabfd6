import { ConfigError } from '@sluice/core';
import { startODataServer, productRow, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, partitionQuery, planPartitions, type ODataClient, type PartitionPlan, type Query } from '../src/index.js';

const PRODUCTS = 300;
let srv: ODataTestServer;
const clients: ODataClient[] = [];
beforeAll(async () => {
  srv = await startODataServer({ products: PRODUCTS, pageSize: 50 });
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await srv.close();
});

function od(root: 'v2' | 'v4'): ODataClient {
  const client = createODataClient({ serviceURL: srv[root], version: root === 'v2' ? '2.0' : '4.0', http: { retry: { maxAttempts: 1, waitBase: 1, maxWait: 2 } } });
  clients.push(client);
  return client;
}

/** The IDs every partition reads, partition by partition. */
async function readAll(base: Query, plan: PartitionPlan): Promise<number[][]> {
  return Promise.all(plan.partitions.map(async (p) => (await partitionQuery(base, p).select('ID').list()).map((r) => r.ID as number)));
}

/** Every ID of 1..n exactly once. */
function expectExactlyOnce(parts: number[][], expected: number[]): void {
  const all = parts.flat().sort((a, b) => a - b);
  expect(all).toEqual(expected);
}
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

for (const root of ['v4', 'v2'] as const) {
  describe(`partitions on OData ${root}`, () => {
    it('splits on the integer key by quantiles: 1 + (N - 1) requests, even partitions, every record once', async () => {
      const client = od(root);
      await client.metadata();
      const base = client.from('Products');
      const mark = srv.requests.length;
      const plan = await planPartitions(base, { partitions: 8 });
      expect(srv.requests.length - mark).toBe(8);
      expect(plan).toMatchObject({ property: 'ID', type: 'Edm.Int32', count: PRODUCTS, requests: 8, note: undefined });
      expect(plan.partitions.map((p) => p.filter)).toEqual(expect.arrayContaining(['ID lt 38', 'ID ge 38 and ID lt 76', 'ID ge 263']));
      const parts = await readAll(base, plan);
      expect(parts.map((p) => p.length)).toEqual([37, 38, 37, 38, 37, 38, 37, 38]);
      expectExactlyOnce(parts, range(1, PRODUCTS));
    });

    it('splits by min/max in two requests; skewed values leave empty partitions that read nothing', async () => {
      const client = od(root);
      const base = client.from('Products').filter('ID le 10 or ID ge 291');
      const plan = await planPartitions(base, { partitions: 4, boundaries: 'minmax' });
      expect(plan.requests).toBe(2);
      expect(plan.partitions.map((p) => [p.lower, p.upper])).toEqual([[undefined, 76], [76, 151], [151, 226], [226, undefined]]);
      const parts = await readAll(base, plan);
      expect(parts.map((p) => p.length)).toEqual([10, 0, 0, 10]);
      expectExactlyOnce(parts, [...range(1, 10), ...range(291, 300)]);
    });

    it("splits on a string with quotes: boundaries like O'Brien are escaped", async () => {
      const client = od(root);
      const base = client.from('Products').filter('ID le 100');
      const plan = await planPartitions(base, { partitions: 10, by: 'Name' });
      expect(plan.partitions.some((p) => p.filter?.includes("'O''Brien "))).toBe(true);
      expectExactlyOnce(await readAll(base, plan), range(1, 100));
    });

    it('splits a nullable non-ASCII string and adds an eq null partition', async () => {
      const client = od(root);
      const base = client.from('Products');
      const plan = await planPartitions(base, { partitions: 6, by: 'Description' });
      const nulls = plan.partitions.at(-1)!;
      expect(nulls).toMatchObject({ nulls: true, filter: 'Description eq null', index: 7 });
      expect(plan.count).toBe(PRODUCTS - PRODUCTS / 5);
      expect(plan.partitions.some((p) => typeof p.lower === 'string' && p.lower.includes('ünïcødé'))).toBe(true);
      const parts = await readAll(base, plan);
      expect(parts.at(-1)).toEqual(range(1, PRODUCTS).filter((i) => productRow(i).Description === null));
      expectExactlyOnce(parts, range(1, PRODUCTS));
    });

    it('splits on a DateTimeOffset and on a GUID', async () => {
      const client = od(root);
      const base = client.from('Products');
      for (const by of ['ReleaseDate', 'Guid']) {
        const plan = await planPartitions(base, { partitions: 5, by });
        expect(plan.partitions).toHaveLength(5);
        expectExactlyOnce(await readAll(base, plan), range(1, PRODUCTS));
      }
    });
  });
}

describe('partition plans that cannot be made as asked', () => {
  it('makes fewer partitions than asked when the set has fewer records, and says so', async () => {
    const base = od('v4').from('Products').filter('ID le 5');
    const plan = await planPartitions(base, { partitions: 16 });
    expect(plan.partitions).toHaveLength(5);
    expect(plan.note).toBe('made 5 of the 16 partitions asked for: only 5 records match');
    expectExactlyOnce(await readAll(base, plan), range(1, 5));
  });

  it('gives one partition that reads nothing when the filter leaves no record', async () => {
    const base = od('v4').from('Products').filter('ID lt 0');
    for (const boundaries of ['quantiles', 'minmax'] as const) {
      const plan = await planPartitions(base, { partitions: 4, boundaries });
      expect(plan.partitions).toEqual([{ index: 1, lower: undefined, upper: undefined, nulls: false, filter: undefined }]);
      expect(plan.note).toBe('no record of Products matches: one partition, which reads nothing');
      expect(await readAll(base, plan)).toEqual([[]]);
    }
  });

  it('refuses bad input with a ConfigError naming the option and the property', async () => {
    const client = od('v4');
    const products = client.from('Products');
    const refused = async (p: Promise<unknown>, option: string, text: RegExp): Promise<void> => {
      const error = await p.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).option).toBe(option);
      expect((error as Error).message).toMatch(text);
    };
    await refused(planPartitions(products, { partitions: 4, by: 'Nope' }), 'partitionBy', /"Nope" is not a property of Products \(orderable ones: ID, Name/);
    await refused(planPartitions(products, { partitions: 4, by: 'Active' }), 'partitionBy', /"Active" of Products is Edm.Boolean, which cannot be split/);
    await refused(planPartitions(client.from('OrderItems'), { partitions: 4 }), 'partitionBy', /composite key \(OrderID, ItemNo\)/);
    await refused(planPartitions(products, { partitions: 4, by: 'Name', boundaries: 'minmax' }), 'boundaries', /needs an integer property; "Name" is Edm.String/);
    await refused(planPartitions(products, { partitions: 0 }), 'partitions', /from 1 to 10000, got 0/);
    await refused(planPartitions(products.top(5), { partitions: 2 }), 'query', /cannot keep \$top/);
  });
});
