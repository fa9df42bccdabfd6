import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productRow, startODataServer, type ODataTestServer, type ProductRow } from '@sluice/testkit';
import { allV2, allV4, enc, getJson, ids, range, type Json } from './odata-server-helpers.js';

describe('OData test server: v4 paging and counting', () => {
  let srv: ODataTestServer;
  beforeAll(async () => { srv = await startODataServer({ products: 1000, pageSize: 100 }); });
  afterAll(async () => { await srv.close(); });

  it('exposes both service roots on its own origin', () => {
    expect(srv.v4).toBe(`${srv.origin}/odata/v4/demo/`);
    expect(srv.v2).toBe(`${srv.origin}/sap/opu/odata/sap/DEMO_SRV/`);
    expect(srv.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('pages through exactly all rows following absolute next links with $skiptoken', async () => {
    const { rows, urls, pages } = await allV4(`${srv.v4}Products`);
    expect(ids(rows)).toEqual(range(1000));
    expect(urls).toHaveLength(10);
    for (const u of urls.slice(1)) {
      expect(u.startsWith(`${srv.v4}Products?`)).toBe(true);
      expect(u).toMatch(/\$skiptoken=\d+$/);
    }
    expect(pages[0]?.['@odata.context']).toBe(`${srv.v4}$metadata#Products`);
    expect(pages.at(-1)?.['@odata.nextLink']).toBeUndefined();
  });

  it('answers with OData-Version 4.0 and a JSON content type', async () => {
    const res = await fetch(`${srv.v4}Products?$top=1`);
    expect(res.headers.get('odata-version')).toBe('4.0');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    await res.text();
  });

  it('honours $top and $skip across pages and keeps other options in next links', async () => {
    const top = await allV4(`${srv.v4}Products?$top=250&$select=ID&custom=x`);
    expect(ids(top.rows)).toEqual(range(250));
    expect(top.urls).toHaveLength(3);
    expect(top.urls[1]).toContain('$top=250');
    expect(top.urls[1]).toContain('custom=x');
    const skip = await allV4(`${srv.v4}Products?$skip=990`);
    expect(ids(skip.rows)).toEqual(range(10).map((k) => 990 + k));
    const both = await allV4(`${srv.v4}Products?$skip=95&$top=10`);
    expect(ids(both.rows)).toEqual(range(10).map((k) => 95 + k));
  });

  it('lowers the page size to Prefer: odata.maxpagesize and says so', async () => {
    const res = await fetch(`${srv.v4}Products`, { headers: { prefer: 'odata.maxpagesize=30' } });
    const body = (await res.json()) as Json;
    expect(body.value).toHaveLength(30);
    expect(res.headers.get('preference-applied')).toBe('odata.maxpagesize=30');
    const all = await allV4(`${srv.v4}Products?$top=95`, { prefer: 'odata.maxpagesize=30' });
    expect(all.urls).toHaveLength(4);
    expect(ids(all.rows)).toEqual(range(95));
  });

  it('puts @odata.count on every page with $count=true, and serves /$count as text', async () => {
    const { pages } = await allV4(`${srv.v4}Products?$count=true&$filter=${enc('ID le 250')}`);
    expect(pages.map((p) => p['@odata.count'])).toEqual([250, 250, 250]);
    const res = await fetch(`${srv.v4}Products/$count`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await res.text()).toBe('1000');
    expect(await (await fetch(`${srv.v4}Products/$count?$filter=${enc('CategoryID eq 2')}`)).text()).toBe('200');
    expect(await (await fetch(`${srv.v4}Categories(3)/Products/$count`)).text()).toBe('200');
  });

  it('records every request with the URL as sent on the request line', async () => {
    const before = srv.requests.length;
    await (await fetch(`${srv.v4}Products?$filter=ID%20eq%201&sap-client=100`)).text();
    const rec = srv.requests[before];
    expect(rec?.method).toBe('GET');
    expect(rec?.url).toBe('/odata/v4/demo/Products?$filter=ID%20eq%201&sap-client=100');
    expect(typeof rec?.at).toBe('number');
  });
});

describe('OData test server: $filter', () => {
  let srv: ODataTestServer;
  const N = 300;
  const all: ProductRow[] = range(N).map(productRow);
  beforeAll(async () => { srv = await startODataServer({ products: N, pageSize: 1000 }); });
  afterAll(async () => { await srv.close(); });

  const base = Date.UTC(2020, 0, 1);
  const big = 9007199254740993n;
  const g3 = productRow(3).Guid;
  const v4Cases: Array<[string, (r: ProductRow) => boolean]> = [
    ['ID le 3', (r) => r.ID <= 3],
    ["Name eq 'O''Brien 7'", (r) => r.ID === 7],
    ["contains(Name,'Brien') and ID lt 30", (r) => r.Name.includes('Brien') && r.ID < 30],
    ["startswith(Name,'Product 1') and endswith(Name,'9')", (r) => r.Name.startsWith('Product 1') && r.Name.endsWith('9')],
    ['Description eq null and ID le 20', (r) => r.Description === null && r.ID <= 20],
    ['Description ne null and ID le 6', (r) => r.Description !== null && r.ID <= 6],
    ['not (ID gt 2)', (r) => r.ID <= 2],
    ['(ID lt 3 or ID gt 297) and Active eq true', (r) => (r.ID < 3 || r.ID > 297) && r.Active],
    ['ID mod 100 eq 0', (r) => r.ID % 100 === 0],
    ['ID add 1 eq 5 or ID sub 1 eq 9 or ID mul 2 eq 40', (r) => r.ID === 4 || r.ID === 10 || r.ID === 20],
    ['ID div 2 eq 3', (r) => Math.trunc(r.ID / 2) === 3],
    ['length(Name) eq 9', (r) => r.Name.length === 9],
    ["tolower(Name) eq 'product 1' or toupper(Name) eq 'PRODUCT 2'", (r) => r.ID === 1 || r.ID === 2],
    ['ID in (3,5,8)', (r) => [3, 5, 8].includes(r.ID)],
    ["Name in ('Product 4','O''Brien 14')", (r) => r.ID === 4 || r.ID === 14],
    ['Stock gt 9007199254740993', (r) => BigInt(r.Stock) > big],
    ['Stock eq 9007199254741004', (r) => r.Stock === '9007199254741004'],
    ['Price ge 500.5 and Price lt 600', (r) => r.PriceCents >= 50050 && r.PriceCents < 60000],
    ['Rating gt 4.5', (r) => r.Rating > 4.5],
    ['ReleaseDate lt 2020-01-01T05:00:00Z', (r) => r.ReleaseMs < base + 5 * 3_600_000],
    ['ReleaseDate ge 2020-01-12', (r) => r.ReleaseMs >= Date.UTC(2020, 0, 12)],
    [`Guid eq ${g3}`, (r) => r.ID === 3],
    ['Active eq false and ID le 10', (r) => !r.Active && r.ID <= 10],
    ["Category/Name eq 'Dairy' and ID le 20", (r) => r.CategoryID === 5 && r.ID <= 20],
    ['-ID eq -3', (r) => r.ID === 3],
    ['Stock sub 9007199254740993 eq 11', (r) => r.ID === 11],
    ['year(ReleaseDate) eq 2020 and month(ReleaseDate) eq 1 and day(ReleaseDate) eq 2 and hour(ReleaseDate) lt 3',
      (r) => r.ReleaseMs >= Date.UTC(2020, 0, 2) && r.ReleaseMs < Date.UTC(2020, 0, 2, 3)],
    ['round(Price) eq 80', (r) => Math.round(r.PriceCents / 100) === 80],
    ["indexof(Name,'Brien') eq 2 and ID lt 20", (r) => r.Name.indexOf('Brien') === 2 && r.ID < 20],
    ["substring(Name,8) eq '12' or concat(trim(Name),'!') eq 'Product 3!'", (r) => r.Name.slice(8) === '12' || r.ID === 3],
    ['ID ge 299 and Rating divby 2 ge 0', (r) => r.ID >= 299],
  ];

  it.each(v4Cases)('v4 %s', async (filter, expected) => {
    const want = all.filter(expected).map((r) => r.ID);
    expect(want.length).toBeGreaterThan(0);
    const { body, status } = await getJson(`${srv.v4}Products?$filter=${enc(filter)}&$select=ID`);
    expect(status).toBe(200);
    expect(ids(body.value as Json[])).toEqual(want);
  });

  const v2Cases: Array<[string, (r: ProductRow) => boolean]> = [
    ["substringof('Brien',Name) and ID lt 30", (r) => r.Name.includes('Brien') && r.ID < 30],
    ["ReleaseDate lt datetime'2020-01-01T05:00:00'", (r) => r.ReleaseMs < base + 5 * 3_600_000],
    ['Stock gt 9007199254740993L', (r) => BigInt(r.Stock) > big],
    ['Price ge 500.5M and Price lt 600M', (r) => r.PriceCents >= 50050 && r.PriceCents < 60000],
    [`Guid eq guid'${g3}'`, (r) => r.ID === 3],
    ["Name eq 'O''Brien 7' or Description eq null and ID le 10", (r) => r.ID === 7 || (r.Description === null && r.ID <= 10)],
  ];

  it.each(v2Cases)('v2 %s', async (filter, expected) => {
    const want = all.filter(expected).map((r) => r.ID);
    expect(want.length).toBeGreaterThan(0);
    const { body, status } = await getJson(`${srv.v2}Products?$filter=${enc(filter)}&$select=ID`);
    expect(status).toBe(200);
    expect(ids(body.d.results as Json[])).toEqual(want);
  });

  it('filters Categories with a lambda over Products', async () => {
    const { body } = await getJson(`${srv.v4}Categories?$filter=${enc("Products/any(p:p/Name eq 'O''Brien 14')")}`);
    expect(ids(body.value as Json[])).toEqual([4]);
    const none = await getJson(`${srv.v4}Categories?$filter=${enc('Products/all(p:p/ID gt 3)')}`);
    expect(ids(none.body.value as Json[])).toEqual([4, 5]);
  });

  const bad: Array<[string, string, string]> = [
    ['v4', 'Nme eq 1', 'Nme'],
    ['v4', "Name eq 5", 'Incompatible'],
    ['v4', "Name eq 'open", 'Unterminated'],
    ['v4', 'ID eq', 'Syntax'],
    ['v4', "substringof('a',Name)", 'substringof'],
    ['v2', "contains(Name,'a')", 'contains'],
    ['v2', 'ID in (1,2)', 'in'],
  ];
  it.each(bad)('%s refuses $filter=%s with 400 and an OData error', async (v, filter, word) => {
    const root = v === 'v4' ? srv.v4 : srv.v2;
    const { status, body } = await getJson(`${root}Products?$filter=${enc(filter)}`);
    expect(status).toBe(400);
    const message = v === 'v4' ? (body.error.message as string) : (body.error.message.value as string);
    expect(message).toContain(word);
    expect(body.error.code).toBe('BadRequest');
  });
});

describe('OData test server: query options, keys, navigation, metadata', () => {
  let srv: ODataTestServer;
  beforeAll(async () => { srv = await startODataServer({ products: 100, pageSize: 20 }); });
  afterAll(async () => { await srv.close(); });

  it('applies $select, $orderby desc and $search', async () => {
    const { body } = await getJson(`${srv.v4}Products?$select=ID,Name&$orderby=${enc('ID desc')}&$top=3`);
    expect(body.value).toEqual([{ ID: 100, Name: 'Product 100' }, { ID: 99, Name: 'Product 99' }, { ID: 98, Name: "O'Brien 98" }]);
    expect(body['@odata.context']).toBe(`${srv.v4}$metadata#Products(ID,Name)`);
    const byPrice = await allV4(`${srv.v4}Products?$orderby=${enc('Price,ID')}&$select=ID,Price`);
    const prices = byPrice.rows.map((r) => r.Price as number);
    expect(prices).toEqual([...prices].sort((a, b) => a - b));
    expect(byPrice.rows).toHaveLength(100);
    const search = await getJson(`${srv.v4}Products?$search=brien&$select=ID`);
    expect(ids(search.body.value as Json[])).toEqual([7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98]);
  });

  it('expands to-one and to-many navigation, with nested options in v4', async () => {
    const one = await getJson(`${srv.v4}Products(7)?$expand=${enc('Category($select=Name)')}`);
    expect(one.body.Category).toEqual({ Name: 'Condiments' });
    const many = await getJson(`${srv.v4}Categories?$expand=${enc('Products($select=ID;$top=2;$orderby=ID desc;$count=true)')}&$top=2`);
    expect(many.body.value[0]).toEqual({ ID: 1, Name: 'Beverages', 'Products@odata.count': 20, Products: [{ ID: 96 }, { ID: 91 }] });
    const v2 = await getJson(`${srv.v2}Products(3)?$expand=Category&$select=ID,Category/Name`);
    expect(v2.body.d.ID).toBe(3);
    expect(v2.body.d.Category.Name).toBe('Produce');
    expect(v2.body.d.Category.__metadata.type).toBe('Demo.Category');
    const v2many = await getJson(`${srv.v2}Categories(1)?$expand=Products`);
    expect(v2many.body.d.Products.results).toHaveLength(20);
    const nested = await getJson(`${srv.v2}Products(1)?$expand=${enc('Category($select=Name)')}`);
    expect(nested.status).toBe(400);
  });

  it('addresses entities by single, named and composite keys', async () => {
    expect((await getJson(`${srv.v4}Products(5)`)).body.Name).toBe('Product 5');
    expect((await getJson(`${srv.v4}Products(ID=5)`)).body.ID).toBe(5);
    const item = await getJson(`${srv.v4}OrderItems(OrderID=2,ItemNo='C')`);
    expect(item.body).toMatchObject({ OrderID: 2, ItemNo: 'C', '@odata.context': `${srv.v4}$metadata#OrderItems/$entity` });
    const v2 = await getJson(`${srv.v2}OrderItems(OrderID=5,ItemNo='D')`);
    expect(v2.body.d.__metadata.uri).toBe(`${srv.v2}OrderItems(OrderID=5,ItemNo='D')`);
    expect((await getJson(`${srv.v4}Products(101)`)).status).toBe(404);
    expect((await getJson(`${srv.v4}Products('5')`)).status).toBe(400);
    expect((await getJson(`${srv.v4}OrderItems(OrderID=1)`)).status).toBe(400);
    expect((await getJson(`${srv.v4}Nope`)).status).toBe(404);
  });

  it('navigates to one and to many, paging the many', async () => {
    expect((await getJson(`${srv.v4}Products(8)/Category`)).body).toMatchObject({ ID: 3, Name: 'Produce' });
    expect((await getJson(`${srv.v2}Products(8)/Category`)).body.d.Name).toBe('Produce');
    const { rows, urls } = await allV4(`${srv.v4}Categories(2)/Products?$select=ID`);
    expect(ids(rows)).toEqual(range(20).map((k) => 5 * k - 3));
    expect(urls).toHaveLength(1);
    const desc = await getJson(`${srv.v4}Categories(2)/Products?$orderby=ID%20desc&$top=3&$select=ID`);
    expect(ids(desc.body.value as Json[])).toEqual([97, 92, 87]);
    const v2 = await allV2(`${srv.v2}Categories(2)/Products?$top=30&$inlinecount=allpages`);
    expect(v2.rows).toHaveLength(20);
  });

  it('serves v2 verbose JSON: d.results, __metadata, __count, __next, dates, strings for Int64/Decimal', async () => {
    const { rows, urls, pages } = await allV2(`${srv.v2}Products?$inlinecount=allpages&sap-client=100`);
    expect(ids(rows)).toEqual(range(100));
    expect(urls).toHaveLength(5);
    for (const u of urls.slice(1)) expect(u).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/sap\/opu\/odata\/sap\/DEMO_SRV\/Products\?.*sap-client=100.*\$skiptoken=\d+/);
    expect(pages.map((p) => p.d.__count)).toEqual(['100', '100', '100', '100', '100']);
    const r11 = rows[10] as Json;
    const p11 = productRow(11);
    expect(r11.__metadata).toEqual({ id: `${srv.v2}Products(11)`, uri: `${srv.v2}Products(11)`, type: 'Demo.Product' });
    expect(r11.Stock).toBe(p11.Stock);
    expect(r11.Price).toMatch(/^\d+\.\d{2}$/);
    expect(r11.ReleaseDate).toBe(`/Date(${p11.ReleaseMs})/`);
    expect(r11.Category).toEqual({ __deferred: { uri: `${srv.v2}Products(11)/Category` } });
    const res = await fetch(`${srv.v2}Products?$top=1`);
    expect(res.headers.get('dataserviceversion')).toBe('2.0');
    expect(await res.text()).toContain('"\\/Date(');
  });

  it('keeps Int64 and Decimal exact as strings with IEEE754Compatible=true, numbers otherwise', async () => {
    const plain = await fetch(`${srv.v4}Products(11)?$select=Stock,Price`);
    const text = await plain.text();
    expect(text).toContain(`"Stock":${productRow(11).Stock}`);
    const ieee = await getJson(`${srv.v4}Products(11)?$select=Stock,Price`, { accept: 'application/json;IEEE754Compatible=true' });
    expect(ieee.body.Stock).toBe('9007199254741004');
    expect(typeof ieee.body.Price).toBe('string');
    expect(ieee.headers.get('content-type')).toContain('IEEE754Compatible=true');
  });

  it('serves $metadata as EDMX in both versions and CSDL JSON in v4', async () => {
    const v4 = await fetch(`${srv.v4}$metadata`);
    expect(v4.headers.get('content-type')).toMatch(/xml/);
    const x4 = await v4.text();
    expect(x4).toContain('Version="4.0"');
    expect(x4).toContain('<EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key>');
    expect(x4).toContain('<Property Name="Price" Type="Edm.Decimal" Nullable="false" Precision="12" Scale="2"/>');
    expect(x4).toContain('<PropertyRef Name="OrderID"/><PropertyRef Name="ItemNo"/>');
    const j1 = (await getJson(`${srv.v4}$metadata?$format=json`)).body;
    const j2 = (await getJson(`${srv.v4}$metadata`, { accept: 'application/json' })).body;
    expect(j1).toEqual(j2);
    expect(j1.$Version).toBe('4.0');
    expect(j1.Demo.Product.$Key).toEqual(['ID']);
    expect(j1.Demo.Product.Stock).toEqual({ $Type: 'Edm.Int64' });
    expect(j1.Demo.Product.Description).toEqual({ $Nullable: true });
    expect(j1.Demo.DemoService.Products.$Type).toBe('Demo.Product');
    const x2 = await (await fetch(`${srv.v2}$metadata`)).text();
    expect(x2).toContain('m:DataServiceVersion="2.0"');
    expect(x2).toContain('<edmx:Edmx Version="1.0"');
    expect(x2).toContain('Name="ReleaseDate" Type="Edm.DateTime"');
    expect(x2).toContain('<Association Name="Product_Category">');
  });

  it('orders by a navigation path and by several keys', async () => {
    const { body } = await getJson(`${srv.v4}Products?$orderby=${enc('Category/Name desc,ID')}&$select=ID,CategoryID&$top=3`);
    // Seafood (4) sorts last alphabetically among the categories, so it comes first descending
    expect(body.value).toEqual([{ ID: 4, CategoryID: 4 }, { ID: 9, CategoryID: 4 }, { ID: 14, CategoryID: 4 }]);
    expect((await getJson(`${srv.v4}Products?$orderby=Nope`)).status).toBe(400);
  });

  it('serves the service documents, single properties, $top=0 and HEAD', async () => {
    const v4 = await getJson(srv.v4);
    expect(v4.body.value.map((e: Json) => e.name)).toEqual(['Products', 'Categories', 'OrderItems']);
    expect((await getJson(srv.v2)).body.d.EntitySets).toEqual(['Products', 'Categories', 'OrderItems']);
    expect((await getJson(`${srv.v4}Products(7)/Name`)).body.value).toBe("O'Brien 7");
    expect((await getJson(`${srv.v2}Products(7)/Name`)).body.d).toEqual({ Name: "O'Brien 7" });
    const none = await getJson(`${srv.v4}Products?$top=0&$count=true`);
    expect(none.body.value).toEqual([]);
    expect(none.body['@odata.count']).toBe(100);
    expect(none.body['@odata.nextLink']).toBeUndefined();
    const head = await fetch(`${srv.v4}Products`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    expect(await head.text()).toBe('');
  });

  it('accepts $format=json and SAP search, and refuses + for spaces', async () => {
    const v2 = await getJson(`${srv.v2}Products?$format=json&search=brien&$select=ID&$top=2`);
    expect(ids(v2.body.d.results as Json[])).toEqual([7, 14]);
    const v4 = await getJson(`${srv.v4}Products?$format=application/json;IEEE754Compatible=true&$select=Stock&$top=1`);
    expect(v4.body.value[0].Stock).toBe('31');
    expect((await getJson(`${srv.v4}Products?$filter=ID+eq+1`)).status).toBe(400);
    expect((await getJson(`${srv.v4}Products?$format=csv`)).status).toBe(400);
  });

  it('refuses unknown options, properties and encodings with OData errors in v4, v2 and SAP XML', async () => {
    const unknownOpt = await getJson(`${srv.v4}Products?$foo=1`);
    expect(unknownOpt.status).toBe(400);
    expect(unknownOpt.body.error.target).toBe('$foo');
    const unknownSel = await getJson(`${srv.v4}Products?$select=Nope`);
    expect(unknownSel.status).toBe(400);
    expect(unknownSel.body.error.message).toContain('Nope');
    expect((await getJson(`${srv.v4}Products?%24filter=ID%20eq%201`)).status).toBe(400);
    expect((await getJson(`${srv.v4}Products?$top=-1`)).status).toBe(400);
    expect((await getJson(`${srv.v4}Products?$inlinecount=allpages`)).status).toBe(400);
    const v2 = await getJson(`${srv.v2}Products?$expand=Nope`);
    expect(v2.status).toBe(400);
    expect(v2.body.error.message).toEqual({ lang: 'en', value: expect.stringContaining('Nope') });
    const xml = await fetch(`${srv.v2}Products(999)?$format=xml`);
    expect(xml.status).toBe(404);
    const text = await xml.text();
    expect(text).toMatch(/^<\?xml[^>]*><error xmlns="http:\/\/schemas\.microsoft\.com\/ado\/2007\/08\/dataservices\/metadata"><code>NotFound<\/code><message xml:lang="en">/);
    expect((await fetch(`${srv.v4}Products`, { method: 'POST', body: '{}' })).status).toBe(405);
  });
});
