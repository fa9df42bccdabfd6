// Writing through @sluice/odata to CAP v4: create / update / delete with ETags (managed modifiedAt),
// the 412 and 428 errors, deep insert, bound and unbound actions and functions.
import { describe, expect, it } from 'vitest';
import { etagOf, guid, PreconditionFailedError, PreconditionRequiredError, UnknownOperationError } from '@sluice/odata';
import { useCapServer } from './support/cap-server.js';
import { v4Client, type Bin, type Note, type Part, type Supplier } from './support/clients.js';

const cap = useCapServer();

describe('CAP v4: writes with ETags', () => {
  it('create returns the entity with its ETag and location; a deep insert creates the composition', async () => {
    const od = v4Client(cap());
    const created = await od.from<Part>('Parts').create({
      ID: 100, name: 'Hose', supplier_ID: 2, price: '4.10', stock: '10', releasedAt: new Date('2026-01-02T03:04:05Z'),
      notes: [{ text: 'coiled' } as Note],
    });
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({ ID: 100, name: 'Hose', price: '4.10' });
    expect(created.etag).toMatch(/^W\/"/);
    expect(created.location).toBe(`${cap().v4}Parts(100)`);
    const notes = await od.from('Parts').key(100).navMany<Note>('notes').list();
    expect(notes.map((n) => n.text)).toEqual(['coiled']);
    expect(notes[0]!.ID).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('update with the read ETag succeeds; the same ETag again is stale: PreconditionFailedError (412)', async () => {
    const od = v4Client(cap());
    const part = await od.from<Part>('Parts').key(1).get();
    const first = etagOf(part);
    expect(first).toMatch(/^W\/"/);
    const updated = await od.from<Part>('Parts').key(1).update({ name: 'Valve DN15' }, { etag: part });
    expect(updated.etag).toBeDefined();
    expect(updated.etag).not.toBe(first);
    const stale = await od.from<Part>('Parts').key(1).update({ name: 'Valve DN20' }, { etag: first! }).catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(PreconditionFailedError);
    expect(stale).toMatchObject({ status: 412 });
    expect((await od.from<Part>('Parts').key(1).get()).name).toBe('Valve DN15');
  });

  it('a write without If-Match on an ETag\'d entity is refused: PreconditionRequiredError (428, quirk of CAP)', async () => {
    const od = v4Client(cap());
    const err = await od.from<Part>('Parts').key(2).update({ name: 'Ball bearing' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreconditionRequiredError);
    expect(err).toMatchObject({ status: 428 });
    await expect(od.from<Part>('Parts').key(2).delete()).rejects.toBeInstanceOf(PreconditionRequiredError);
  });

  it('readIfChanged: 304 for the current ETag, the entity for an old one', async () => {
    const od = v4Client(cap());
    const part = await od.from<Part>('Parts').key(3).get();
    expect(await od.from<Part>('Parts').key(3).readIfChanged(part)).toMatchObject({ modified: false });
    await od.from<Part>('Parts').key(3).update({ stock: '76' }, { etag: part });
    const changed = await od.from<Part>('Parts').key(3).readIfChanged(part);
    expect(changed).toMatchObject({ modified: true, value: { stock: '76' } });
  });

  it('replace and delete with If-Match; entities without an ETag need none', async () => {
    const od = v4Client(cap());
    const part = await od.from<Part>('Parts').key(5).get();
    await od.from<Part>('Parts').key(5).delete({ etag: part });
    await expect(od.from('Parts').key(5).get()).rejects.toMatchObject({ status: 404 });
    const bin = od.from<Bin>('Bins').key({ plant: '2000', number: 2 });
    await od.from<Bin>('Bins').create({ plant: '2000', number: 2, label: 'B-02', part_ID: 1 });
    await bin.replace({ plant: '2000', number: 2, label: 'B-02r', part_ID: 3 });
    expect(await bin.get()).toMatchObject({ label: 'B-02r', part_ID: 3 });
    await bin.update({ label: 'B-02u' });
    expect(await bin.get()).toMatchObject({ label: 'B-02u', part_ID: 3 });
    await bin.delete();
    await expect(bin.get()).rejects.toMatchObject({ status: 404 });
    const before = await od.from('Notes').countOnly();
    await od.from('Notes').key(guid('7d0c7f8e-53d5-4d4c-9a1e-0b4e7f1b2c02')).delete();
    expect(await od.from('Notes').countOnly()).toBe(before - 1);
  });
});

describe('CAP v4: actions and functions', () => {
  it('a bound action with the entity\'s ETag', async () => {
    const od = v4Client(cap());
    const part = await od.from<Part>('Parts').key(2).get();
    const result = await od.from<Part>('Parts').key(2).action<Part>('InteropService.restock').parameter('quantity', 5).execute({ etag: part });
    expect(result.status).toBe(200);
    expect(result.value).toMatchObject({ ID: 2, stock: String(BigInt(part.stock) + 5n) });
  });

  it('an unbound action with parameters in the body; a CAP error from it is an ODataError', async () => {
    const od = v4Client(cap());
    const result = await od.action<number>('renameSupplier').parameter('ID', 3).parameter('name', "Nord's Lager").execute();
    expect(result.value).toBe(1);
    expect((await od.from<Supplier>('Suppliers').key(3).get()).name).toBe("Nord's Lager");
    await expect(od.action('renameSupplier').parameter('ID', 99).parameter('name', 'x').execute()).rejects.toMatchObject({ name: 'ODataError', status: 404 });
  });

  it('functions: a collection and a scalar Int64, parameters as escaped URL literals', async () => {
    const od = v4Client(cap());
    const parts = await od.function<Part[]>('partsIn', { city: 'Berlin', maxPrice: 8 }).execute();
    expect(parts.map((p) => p.ID)).toEqual([2, 3]);
    const none = await od.function<Part[]>('partsIn', { city: "O'Neil's", maxPrice: 100 }).execute();
    expect(none).toEqual([]);
    expect(await od.function<string>('stockOf', { ID: 4 }).execute()).toBe('9007199254740993');
  });

  it('with $metadata loaded, an undeclared operation is refused before anything is sent', async () => {
    const od = v4Client(cap(), { loadMetadata: true });
    await expect(od.function('stockOff', { ID: 1 }).execute()).rejects.toBeInstanceOf(UnknownOperationError);
  });
});
