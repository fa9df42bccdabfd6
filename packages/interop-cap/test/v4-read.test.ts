// Reading through @sluice/odata from SAP CAP's OData v4 service: every query option of SPEC 4.5,
// keys (simple, composite, GUID), navigation, $count and /$count.
import { describe, expect, it } from 'vitest';
import { guid } from '@sluice/odata';
import { useCapServer } from './support/cap-server.js';
import { v4Client, type Bin, type Note, type Part, type Supplier } from './support/clients.js';

const cap = useCapServer();

describe('CAP v4: query options (SPEC 4.5)', () => {
  it('$filter with comparison and logical operators', async () => {
    const od = v4Client(cap());
    const rows = await od.from<Part>('Parts')
      .filter((f) => f.and(f.ge('price', 3), f.or(f.lt('price', 10), f.eq('name', 'Valve')), f.not(f.eq('ID', 3))))
      .orderBy('ID').select('ID').list();
    expect(rows.map((p) => p.ID)).toEqual([1, 2, 4]);
    const ne = await od.from<Part>('Parts').filter((f) => f.ne('supplier_ID', 1)).orderBy('ID').select('ID').list();
    expect(ne.map((p) => p.ID)).toEqual([1, 2, 5]);
    const le = await od.from<Part>('Parts').filter((f) => f.and(f.gt('price', 3.2), f.le('price', 7.95))).select('ID').list();
    expect(le.map((p) => p.ID)).toEqual([3]);
  });

  it('$filter string functions, escaped quotes and spaces', async () => {
    const od = v4Client(cap());
    const byName = async (build: Parameters<ReturnType<typeof od.from<Supplier>>['filter']>[0]) =>
      (await od.from<Supplier>('Suppliers').filter(build).orderBy('ID').select('ID').list()).map((s) => s.ID);
    expect(await byName((f) => f.startswith('name', "O'Neil"))).toEqual([1]);
    expect(await byName((f) => f.endswith('name', 'Valves'))).toEqual([2]);
    expect(await byName((f) => f.contains(f.tolower('name'), 'north bear'))).toEqual([3]);
    expect(await byName((f) => f.eq('name', "O'Neil Tools"))).toEqual([1]);
  });

  it('$filter null checks', async () => {
    const od = v4Client(cap());
    expect(await od.from<Part>('Parts').filter((f) => f.isNull('supplier_ID')).countOnly()).toBe(0);
    expect(await od.from<Part>('Parts').filter((f) => f.isNotNull('supplier_ID')).countOnly()).toBe(5);
  });

  it('$select reduces the payload to the named properties; CAP adds the ETag element (quirk)', async () => {
    const od = v4Client(cap());
    const suppliers = await od.from<Supplier>('Suppliers').select('name').orderBy('ID').top(1).list();
    expect(Object.keys(suppliers[0]!).filter((k) => !k.startsWith('@')).sort()).toEqual(['ID', 'name']);
    const parts = await od.from<Part>('Parts').select('ID', 'name').orderBy('ID').top(1).list();
    expect(Object.keys(parts[0]!).filter((k) => !k.startsWith('@')).sort()).toEqual(['ID', 'modifiedAt', 'name']);
  });

  it('$orderby, $top and $skip', async () => {
    const od = v4Client(cap());
    const rows = await od.from<Part>('Parts').orderBy('price desc').skip(1).top(3).select('ID', 'price').list();
    expect(rows.map((p) => p.ID)).toEqual([4, 3, 2]);
    const two = await od.from<Part>('Parts').orderBy('supplier_ID', 'name desc').top(2).select('ID').list();
    expect(two.map((p) => p.ID)).toEqual([4, 3]);
  });

  it('$count=true gives the total beside a page; /$count the number alone', async () => {
    const od = v4Client(cap());
    const pages = [];
    for await (const page of od.from<Part>('Parts').filter((f) => f.lt('price', 10)).count().top(2).pages()) pages.push(page);
    expect(pages).toHaveLength(1);
    expect(pages[0]!.count).toBe(4);
    expect(pages[0]!.value).toHaveLength(2);
    expect(await od.from('Readings').countOnly()).toBe(5000);
    expect(await od.from<Part>('Parts').filter((f) => f.eq('supplier_ID', 1)).countOnly()).toBe(2);
  });

  it('$search on a CAP service (searches its String elements)', async () => {
    const rows = await v4Client(cap()).from<Part>('Parts').search('Spanner').orderBy('ID').select('ID').list();
    expect(rows.map((p) => p.ID)).toEqual([3, 4]);
  });

  it('$expand to-one and to-many, with nested options and a nested $expand', async () => {
    const od = v4Client(cap());
    const part = await od.from<Part>('Parts').key(1).expand('supplier').get();
    expect(part.supplier).toMatchObject({ ID: 2, name: 'Acme Valves' });
    const suppliers = await od.from<Supplier>('Suppliers')
      .filter((f) => f.eq('city', 'Berlin'))
      .expand('parts', { select: ['ID', 'name'], orderBy: ['ID desc'], top: 1, expand: { notes: { select: ['text'] } } })
      .orderBy('ID').list();
    expect(suppliers.map((s) => [s.ID, s.parts!.map((p) => p.ID)])).toEqual([[1, [4]], [3, [2]]]);
    expect(suppliers[1]!.parts![0]!.notes!.map((n) => n.text)).toEqual(['sold in pairs']);
    const filtered = await od.from<Part>('Parts').key(1).expand('notes', { filter: (f) => f.eq('text', 'fragile') }).get();
    expect(filtered.notes!.map((n) => n.text)).toEqual(['fragile']);
  });
});

describe('CAP v4: keys and navigation', () => {
  it('reads by a simple key, a composite key and a GUID key', async () => {
    const od = v4Client(cap());
    expect(await od.from<Supplier>('Suppliers').key(2).get()).toMatchObject({ ID: 2, city: 'Lyon', since: '2020-02-29' });
    expect(await od.from<Bin>('Bins').key({ plant: '1000', number: 2 }).get()).toMatchObject({ label: 'A-02', part_ID: 2 });
    const note = await od.from<Note>('Notes').key(guid('7d0c7f8e-53d5-4d4c-9a1e-0b4e7f1b2c03')).get();
    expect(note).toMatchObject({ text: 'sold in pairs', part_ID: 2 });
  });

  it('a missing key is an ODataError with status 404', async () => {
    await expect(v4Client(cap()).from('Bins').key({ plant: '9999', number: 1 }).get()).rejects.toMatchObject({ name: 'ODataError', status: 404 });
  });

  it('navigates to-one and to-many from a keyed entity', async () => {
    const od = v4Client(cap());
    const supplier = await od.from('Bins').key({ plant: '2000', number: 1 }).nav('part').nav<Supplier>('supplier').get();
    expect(supplier.name).toBe("O'Neil Tools");
    const parts = await od.from('Suppliers').key(1).navMany<Part>('parts').orderBy('ID').select('ID').list();
    expect(parts.map((p) => p.ID)).toEqual([3, 4]);
  });

  it('Int64 and Decimal come back as exact strings (CAP\'s ieee754compatible feature, on here); DateTime as ISO text', async () => {
    const part = await v4Client(cap()).from<Part>('Parts').key(4).select('price', 'stock', 'releasedAt').get();
    expect(part.price).toBe('8.95');
    expect(part.stock).toBe('9007199254740993');
    expect(part.releasedAt).toBe('2025-03-02T12:00:00Z');
  });
});
