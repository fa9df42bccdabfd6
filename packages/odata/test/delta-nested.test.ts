// DeltaSync against exact OData JSON 4.01 delta payloads (section 15, "Delta Payload"): deleted entities
// named by their key properties instead of @id, and nested deltas of an expanded navigation
// (`Orders@delta`). A node:http server answers the kept delta link with the payload written here after the
// shape of the specification's nested-delta example.
import { NESTED_DELTA_EDMX as EDMX, startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, DeltaSync, type DeltaChange, type DeltaStore, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A store holding one kept link, so that changes() reads the delta link at once. */
function keptLink(link: string): DeltaStore & { saved: string[] } {
  const saved: string[] = [];
  return {
    saved,
    load: () => Promise.resolve(link),
    save: (_key, value) => { saved.push(value); return Promise.resolve(); },
    clear: () => Promise.resolve(),
  };
}


const PAGE = {
  '@context': '$metadata#Customers/$delta',
  value: [
    {
      '@id': "Customers('BOTTM')", '@etag': 'W/"7"', ID: 'BOTTM', ContactName: 'Susan Halvenstern',
      'Orders@delta': [
        { '@removed': { reason: 'deleted' }, '@id': 'Orders(10643)' },
        { '@removed': { reason: 'changed' }, OrderID: 10692 },
        { '@id': 'Orders(10645)', OrderID: 10645, ShippedDate: '2026-11-01T00:00:00Z' },
      ],
    },
    { '@removed': { reason: 'deleted' }, ID: 'DUMON' },
    { '@removed': {}, '@context': '#Customers/$deletedEntity', ID: "O'BRI" },
  ],
  '@deltaLink': 'Customers?$expand=Orders&$deltatoken=2',
};

async function sync(withMetadata: boolean): Promise<{ changes: DeltaChange<Record<string, unknown>>[]; store: ReturnType<typeof keptLink> }> {
  const server = await startServer((req, res) => {
    if (req.url === '/svc/$metadata') {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(EDMX);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.01' });
    res.end(JSON.stringify(PAGE));
  });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
  clients.push(od);
  if (withMetadata) await od.metadata();
  const store = keptLink(`${server.origin}/svc/Customers?$expand=Orders&$deltatoken=1`);
  const changes: DeltaChange<Record<string, unknown>>[] = [];
  for await (const change of new DeltaSync(od, od.from('Customers').expand('Orders'), { store }).changes()) changes.push(change);
  return { changes, store };
}

describe('OData JSON 4.01 delta: removals by key and nested deltas', () => {
  for (const withMetadata of [false, true]) {
    it(`reports key-only removals with their key and an id built from the set${withMetadata ? ' (key typed by $metadata)' : ''}`, async () => {
      const { changes, store } = await sync(withMetadata);
      expect(changes).toHaveLength(3);
      expect(changes[1]).toEqual({ kind: 'removed', id: "Customers('DUMON')", key: { ID: 'DUMON' }, reason: 'deleted' });
      expect(changes[2]).toEqual({ kind: 'removed', id: "Customers('O''BRI')", key: { ID: "O'BRI" }, reason: undefined });
      expect(store.saved).toEqual([expect.stringMatching(/\/svc\/Customers\?\$expand=Orders&\$deltatoken=2$/)]);
    });

    it(`surfaces the nested delta of an expanded navigation in related${withMetadata ? ' (with $metadata)' : ''}`, async () => {
      const { changes } = await sync(withMetadata);
      const customer = changes[0]!;
      expect(customer.kind).toBe('entity');
      if (customer.kind !== 'entity') return;
      // The entity keeps its ETag (4.01 @etag spelt @odata.etag) and no other control information.
      expect(customer.value).toEqual({ '@odata.etag': 'W/"7"', ID: 'BOTTM', ContactName: 'Susan Halvenstern' });
      expect(customer.related).toEqual({
        Orders: [
          { kind: 'removed', id: 'Orders(10643)', reason: 'deleted' },
          // Its set comes from the NavigationPropertyBinding of $metadata; without it the key alone names it.
          { kind: 'removed', id: withMetadata ? 'Orders(10692)' : undefined, key: { OrderID: 10692 }, reason: 'changed' },
          { kind: 'entity', value: { OrderID: 10645, ShippedDate: '2026-11-01T00:00:00Z' } },
        ],
      });
    });
  }
});
