// Writing through CAP's v2 adapter: create (Location on the adapter's localhost, rebased), MERGE with the
// ETag from __metadata.etag, 412 for a stale one; the adapter does no CSRF (pinned).
import { describe, expect, it } from 'vitest';
import { etagOf, PreconditionFailedError, PreconditionRequiredError } from '@sluice/odata';
import type { SluiceEvent } from '@sluice/core';
import { useCapServer } from './support/cap-server.js';
import { v2Client, type Part, type Supplier } from './support/clients.js';

const cap = useCapServer();

describe('CAP v2 adapter: writes', () => {
  it('create: the Location the adapter names on localhost is rebased onto the service origin', async () => {
    const events: SluiceEvent[] = [];
    const od = v2Client(cap(), { loadMetadata: true, http: { onEvent: (e) => { if (e.type === 'odata.link.rebased') events.push(e); } } });
    const created = await od.from<Supplier>('Suppliers').create({ ID: 10, name: 'Delta Seals', city: 'Porto', since: new Date('2024-05-06T00:00:00Z') });
    expect(created.status).toBe(201);
    expect(created.value).toMatchObject({ ID: 10, name: 'Delta Seals', since: '2024-05-06' });
    expect(created.location).toBe(`${cap().v2}Suppliers(10)`);
    expect(events).toEqual([expect.objectContaining({ kind: 'location' })]);
    expect((await od.from<Supplier>('Suppliers').key(10).get()).city).toBe('Porto');
  });

  it('MERGE with the ETag read from __metadata.etag; the old ETag again is a PreconditionFailedError', async () => {
    const od = v2Client(cap(), { loadMetadata: true });
    const part = await od.from<Part>('Parts').key(2).get();
    const etag = etagOf(part);
    expect(etag).toMatch(/^W\/"/);
    await od.from<Part>('Parts').key(2).update({ price: '3.30' }, { etag: part });
    expect((await od.from<Part>('Parts').key(2).get()).price).toBe('3.30');
    await expect(od.from<Part>('Parts').key(2).update({ price: '3.40' }, { etag: etag! })).rejects.toBeInstanceOf(PreconditionFailedError);
    await expect(od.from<Part>('Parts').key(2).update({ price: '3.40' })).rejects.toBeInstanceOf(PreconditionRequiredError);
  });

  it('the adapter issues no CSRF token (quirk: SAP gateways do); csrf "auto" writes without one', async () => {
    const res = await fetch(cap().v2, { method: 'HEAD', headers: { 'x-csrf-token': 'Fetch' } });
    expect(res.headers.get('x-csrf-token')).toBeNull();
    const od = v2Client(cap(), { csrf: 'auto' });
    await od.from<Supplier>('Suppliers').key(3).update({ city: 'Hamburg' });
    expect((await od.from<Supplier>('Suppliers').key(3).get()).city).toBe('Hamburg');
  });

  it('delete', async () => {
    const od = v2Client(cap());
    await od.from('Suppliers').key(10).delete();
    await expect(od.from('Suppliers').key(10).get()).rejects.toMatchObject({ status: 404 });
  });

  it('a bound action as the adapter\'s function import <Set>_<action> (POST, key and parameters in the query)', async () => {
    const od = v2Client(cap(), { loadMetadata: true });
    const part = await od.from<Part>('Parts').key(1).get();
    const result = await od.action<Part>('Parts_restock').parameter('ID', 1).parameter('quantity', 2)
      .execute({ etag: part, headers: { 'content-type': 'application/json' } });
    expect(result.value).toMatchObject({ ID: 1, stock: String(BigInt(part.stock) + 2n) });
  });
});
