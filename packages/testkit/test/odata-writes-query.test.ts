import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed bodies are inspected freely
type Json = Record<string, any>;

let srv: ODataTestServer;
const ids: Record<string, number> = {};

async function get(url: string): Promise<{ status: number; json: Json; text: string }> {
  const res = await fetch(url);
  const text = await res.text();
  let json: Json = {};
  try { json = JSON.parse(text) as Json; } catch { /* plain text ($count) */ }
  return { status: res.status, json, text };
}

const q = (text: string): string => encodeURIComponent(text).replace(/%2C/g, ',').replace(/%24/g, '$');

beforeAll(async () => {
  srv = await startODataServer({ products: 1, writes: true });
  const orders = [
    { Customer: 'Alpha', Amount: '5.25', Quantity: '2', DeliveryDate: '2026-03-01T00:00:00Z', Lines: [{ Product: 'P1', Qty: 1 }, { Product: 'P2', Qty: 4 }] },
    { Customer: 'Beta', Amount: '150.00', Quantity: '9007199254740993', DeliveryDate: null, Lines: [{ Product: 'P3', Qty: 2 }] },
    { Customer: 'Gamma', Amount: '42.10', Quantity: '7', DeliveryDate: '2026-09-15T12:00:00Z' },
    { Customer: "O'Hara", Amount: '99.99', Quantity: '1', DeliveryDate: '2026-01-10T08:00:00Z' },
  ];
  for (const o of orders) {
    const res = await fetch(`${srv.v4}Orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json;IEEE754Compatible=true', accept: 'application/json;IEEE754Compatible=true' },
      body: JSON.stringify(o),
    });
    expect(res.status).toBe(201);
    ids[o.Customer] = ((await res.json()) as { ID: number }).ID;
  }
});
afterAll(() => srv.close());

const customers = (body: Json): string[] => body.value.map((o: Json) => o.Customer);

describe('OData test server: query options on the writable sets (v4)', () => {
  it('$filter on Orders: comparisons on Decimal, Int64 beyond 2^53, dates, null and string functions', async () => {
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('Amount gt 50')}`)).json)).toEqual(['Beta', "O'Hara"]);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('Quantity gt 9007199254740992')}`)).json)).toEqual(['Beta']);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('DeliveryDate lt 2026-06-01T00:00:00Z')}`)).json)).toEqual(['Alpha', "O'Hara"]);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('DeliveryDate eq null')}`)).json)).toEqual(['Beta']);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q("startswith(Customer,'O''') or contains(Customer,'mm')")}`)).json)).toEqual(['Gamma', "O'Hara"]);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q(`ID in (${ids['Alpha']},${ids['Gamma']})`)}`)).json)).toEqual(['Alpha', 'Gamma']);
  });

  it('$orderby, $skip, $top and $count=true (the count of all matching rows, not of the page)', async () => {
    const page = await get(`${srv.v4}Orders?$filter=${q('Amount gt 1')}&$orderby=${q('Amount desc')}&$skip=1&$top=2&$count=true`);
    expect(page.json['@odata.count']).toBe(4);
    expect(customers(page.json)).toEqual(["O'Hara", 'Gamma']);
    expect(customers((await get(`${srv.v4}Orders?$orderby=${q('DeliveryDate desc,Customer')}`)).json)).toEqual(['Gamma', 'Alpha', "O'Hara", 'Beta']);
    expect((await get(`${srv.v4}Orders/$count?$filter=${q('Amount lt 100')}`)).text).toBe('3');
  });

  it('$filter with any/all over Lines (an order without lines: any false, all true), also in /$count', async () => {
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('Lines/any(l:l/Qty gt 3)')}`)).json)).toEqual(['Alpha']);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('Lines/any()')}`)).json)).toEqual(['Alpha', 'Beta']);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q('Lines/all(l:l/Qty ge 2)')}`)).json)).toEqual(['Beta', 'Gamma', "O'Hara"]);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q("Lines/any(l:l/Product eq 'P3' and l/Qty eq 2) and Amount gt 100")}`)).json)).toEqual(['Beta']);
    expect(customers((await get(`${srv.v4}Orders?$filter=${q("Lines/any(l:l/Product eq 'P2')")}&$orderby=${q('Amount desc')}&$select=Customer`)).json)).toEqual(['Alpha']);
    expect((await get(`${srv.v4}Orders/$count?$filter=${q('not Lines/any()')}`)).text).toBe('2');
    const unknown = await get(`${srv.v4}Orders?$filter=${q('Lines/any(l:l/Nope eq 1)')}`);
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.target).toBe('$filter');
  });

  it('OrderLines and Orders(n)/Lines take $filter, $orderby, $top and $count', async () => {
    const lines = await get(`${srv.v4}OrderLines?$filter=${q('Qty ge 2')}&$orderby=${q('Qty desc')}&$count=true`);
    expect(lines.json.value.map((l: Json) => l.Product)).toEqual(['P2', 'P3']);
    expect(lines.json['@odata.count']).toBe(2);
    const own = await get(`${srv.v4}Orders(${ids['Alpha']})/Lines?$filter=${q("Product eq 'P2'")}`);
    expect(own.json.value.map((l: Json) => l.Product)).toEqual(['P2']);
    expect((await get(`${srv.v4}Orders(${ids['Alpha']})/Lines/$count?$filter=${q('Qty lt 3')}`)).text).toBe('1');
    expect((await get(`${srv.v4}OrderLines/$count`)).text).toBe('3');
    expect((await get(`${srv.v4}OrderLines?$top=1&$orderby=${q('ID desc')}`)).json.value.map((l: Json) => l.Product)).toEqual(['P3']);
  });

  it('$select on Orders, Orders(n), OrderLines and Orders(n)/Lines: only those properties (and the ETag), the context URL says so', async () => {
    const keys = (o: Json): string[] => Object.keys(o).sort();
    const orders = await get(`${srv.v4}Orders?$select=Customer,Amount&$filter=${q('Amount gt 50')}&$orderby=Customer`);
    expect(orders.json['@odata.context']).toBe(`${srv.v4}$metadata#Orders(Customer,Amount)`);
    expect(orders.json.value).toEqual([
      { '@odata.etag': expect.any(String), Customer: 'Beta', Amount: 150 },
      { '@odata.etag': expect.any(String), Customer: "O'Hara", Amount: 99.99 },
    ]);
    const one = await get(`${srv.v4}Orders(${ids['Alpha']})?$select=ID,Attachment`);
    expect(one.json).toEqual({ '@odata.context': `${srv.v4}$metadata#Orders(ID,Attachment)/$entity`, '@odata.etag': expect.any(String), ID: ids['Alpha'], Attachment: null });
    // $expand'ed Lines come with the selected properties of the order.
    const expanded = await get(`${srv.v4}Orders(${ids['Alpha']})?$select=Customer&$expand=Lines`);
    expect(keys(expanded.json)).toEqual(['@odata.context', '@odata.etag', 'Customer', 'Lines']);
    expect(expanded.json.Lines.map((l: Json) => l.Product)).toEqual(['P1', 'P2']);
    const lines = await get(`${srv.v4}OrderLines?$select=Product&$orderby=${q('Qty desc')}`);
    expect(lines.json['@odata.context']).toBe(`${srv.v4}$metadata#OrderLines(Product)`);
    expect(lines.json.value).toEqual([{ Product: 'P2' }, { Product: 'P3' }, { Product: 'P1' }]);
    expect((await get(`${srv.v4}Orders(${ids['Alpha']})/Lines?$select=Qty,ID`)).json.value.map(keys)).toEqual([['ID', 'Qty'], ['ID', 'Qty']]);
    // `*` keeps every property, as no $select does.
    expect(keys((await get(`${srv.v4}OrderLines?$select=*&$top=1`)).json.value[0])).toEqual(['ID', 'OrderID', 'Product', 'Qty']);
  });

  it('refuses $select of an unknown property, and a path into Lines, with 400 naming $select', async () => {
    for (const url of [`${srv.v4}Orders?$select=Nope`, `${srv.v4}OrderLines?$select=Qty,Lines`, `${srv.v4}Orders(${ids['Alpha']})?$select=Lines/Product&$expand=Lines`]) {
      const res = await get(url);
      expect(res.status, url).toBe(400);
      expect(res.json.error.target).toBe('$select');
    }
  });

  it('refuses an unknown property, a non-Boolean filter, an unknown option and a filter on Edm.Binary with 400 naming $filter', async () => {
    for (const filter of ['Nope eq 1', 'Amount add 1', 'Attachment eq null']) {
      const res = await get(`${srv.v4}Orders?$filter=${q(filter)}`);
      expect(res.status).toBe(400);
      expect(res.json.error.target).toBe('$filter');
    }
    expect((await get(`${srv.v4}OrderLines?$fliter=${q('Qty eq 1')}`)).status).toBe(400);
  });
});

describe('OData test server: query options on the writable sets (v2)', () => {
  it('$filter with v2 literals, $orderby, $top and $inlinecount', async () => {
    const res = await get(`${srv.v2}Orders?$filter=${q("Amount gt 40M and substringof('a',Customer)")}&$orderby=${q('Amount')}&$inlinecount=allpages&$top=1`);
    expect(res.json.d.__count).toBe('3');
    expect(res.json.d.results.map((o: Json) => o.Customer)).toEqual(['Gamma']);
    const dated = await get(`${srv.v2}Orders?$filter=${q("DeliveryDate gt datetime'2026-06-01T00:00:00'")}`);
    expect(dated.json.d.results.map((o: Json) => o.Customer)).toEqual(['Gamma']);
    expect((await get(`${srv.v2}OrderLines?$filter=${q('Qty eq 4')}`)).json.d.results.map((l: Json) => l.Product)).toEqual(['P2']);
  });

  it('$select: the selected properties and __metadata; Lines as a link only when selected, its members by Lines/Prop with $expand', async () => {
    const keys = (o: Json): string[] => Object.keys(o).sort();
    const plain = await get(`${srv.v2}Orders?$select=Customer&$filter=${q("Customer eq 'Gamma'")}`);
    expect(plain.json.d.results.map(keys)).toEqual([['Customer', '__metadata']]);
    const linked = await get(`${srv.v2}Orders?$select=Customer,Lines&$filter=${q("Customer eq 'Gamma'")}`);
    expect(linked.json.d.results[0].Lines.__deferred.uri).toMatch(/\/Orders\(\d+\)\/Lines$/);
    const expanded = await get(`${srv.v2}Orders(${ids['Alpha']})?$select=Customer,Lines/Product&$expand=Lines`);
    expect(expanded.json.d.Customer).toBe('Alpha');
    expect(expanded.json.d.Lines.results.map(keys)).toEqual([['Product', '__metadata'], ['Product', '__metadata']]);
    expect((await get(`${srv.v2}Orders?$select=Lines/Product`)).status).toBe(400);
    expect((await get(`${srv.v2}OrderLines?$select=Qty&$filter=${q('Qty eq 4')}`)).json.d.results.map(keys)).toEqual([['Qty', '__metadata']]);
  });
});

describe('OData test server: change tracking of the writable sets', () => {
  it('refuses a change-tracking read that narrows the set, rather than tracking the whole set silently', async () => {
    const res = await fetch(`${srv.v4}Orders?$filter=${q('Amount gt 50')}`, { headers: { prefer: 'odata.track-changes' } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as Json).error.target).toBe('$filter');
    const whole = await fetch(`${srv.v4}Orders`, { headers: { prefer: 'odata.track-changes' } });
    expect(whole.status).toBe(200);
    const delta = ((await whole.json()) as Json)['@odata.deltaLink'] as string;
    expect((await fetch(`${delta}&$top=1`)).status).toBe(400);
  });
});
