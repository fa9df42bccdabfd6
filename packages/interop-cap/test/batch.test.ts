// $batch through @sluice/odata against CAP: multipart/mixed (v4 and the v2 adapter) and the OData 4.01
// JSON batch (v4), each with a read, a changeset that succeeds and one that fails and is rolled back.
import { describe, expect, it } from 'vitest';
import { PreconditionFailedError, type BatchOperation, type ODataClient } from '@sluice/odata';
import { useCapServer } from './support/cap-server.js';
import { v2Client, v4Client, type Part, type Supplier } from './support/clients.js';

const cap = useCapServer();

// Each case changes a part no other test of this file writes, so the ETag it reads is the seeding time's and
// the one its first changeset sets is certainly newer.
async function batchWithFailingChangeset(od: ODataClient, format: 'multipart' | 'json', base: number, partID: number): Promise<void> {
  const part = await od.from<Part>('Parts').key(partID).get();
  const batch = od.batch();
  const read = batch.get(od.from<Supplier>('Suppliers').key(1));
  let created!: BatchOperation;
  batch.changeset((cs) => {
    created = cs.create(od.from('Suppliers'), { ID: base, name: 'Batch Ltd', city: 'Oslo' });
    cs.update(od.from('Parts').key(partID), { name: `${part.name} (batch)` }, { etag: part });
  });
  let doomed!: BatchOperation;
  let stale!: BatchOperation;
  batch.changeset((cs) => {
    doomed = cs.create(od.from('Suppliers'), { ID: base + 1, name: 'Never Ltd', city: 'Oslo' });
    stale = cs.update(od.from('Parts').key(partID), { name: 'lost' }, { etag: part });   // the ETag the first changeset outdated
  });
  const results = await batch.send(format === 'json' ? { format: 'json' } : {});
  expect(results).toHaveLength(5);
  expect(read.result).toMatchObject({ ok: true, status: 200, value: { ID: 1, city: 'Berlin' } });
  expect(created.result).toMatchObject({ ok: true, status: 201 });
  expect(stale.result.ok).toBe(false);
  expect(stale.result.error).toBeInstanceOf(PreconditionFailedError);
  // Multipart answers the failed changeset with one error; CAP's JSON batch answers each request of the
  // atomicity group on its own, the rolled back create as 201 (pinned below with the raw answer). Either
  // way sluice fails every operation of the changeset with its error.
  expect(doomed.result.ok).toBe(false);
  expect(doomed.result.status).toBe(412);
  expect(doomed.result.error).toBeInstanceOf(PreconditionFailedError);
  // The failed changeset was rolled back; the first one stays.
  await expect(od.from('Suppliers').key(base + 1).get()).rejects.toMatchObject({ status: 404 });
  expect((await od.from<Supplier>('Suppliers').key(base).get()).name).toBe('Batch Ltd');
  expect((await od.from<Part>('Parts').key(partID).get()).name).toBe(`${part.name} (batch)`);
}

describe('CAP $batch with a failing changeset', () => {
  it('v4 multipart/mixed', async () => {
    await batchWithFailingChangeset(v4Client(cap()), 'multipart', 30, 3);
  });

  it('v4 JSON batch (OData 4.01)', async () => {
    await batchWithFailingChangeset(v4Client(cap()), 'json', 40, 4);
  });

  it('v2 multipart/mixed through the adapter', async () => {
    await batchWithFailingChangeset(v2Client(cap()), 'multipart', 50, 5);
  });

  it('CAP\'s JSON batch answers a failed atomicity group request by request, a rolled back create as 201 (quirk)', async () => {
    const res = await fetch(`${cap().v4}$batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ requests: [
        { id: '1', atomicityGroup: 'g', method: 'POST', url: 'Suppliers', headers: { 'content-type': 'application/json' }, body: { ID: 61, name: 'x' } },
        { id: '2', atomicityGroup: 'g', method: 'PATCH', url: 'Parts(3)', headers: { 'content-type': 'application/json', 'if-match': 'W/"1999"' }, body: { name: 'y' } },
      ] }),
    });
    const body = await res.json() as { responses: { id: string; status: number }[] };
    expect(body.responses.map((r) => [r.id, r.status])).toEqual([['1', 201], ['2', 412]]);
    await expect(v4Client(cap()).from('Suppliers').key(61).get()).rejects.toMatchObject({ status: 404 });
  });

  it('v4 JSON batch: a later changeset and a read refer to what an earlier changeset created (dependsOn across groups)', async () => {
    const od = v4Client(cap());
    const send = async (id: number, dependsOnGroups: boolean): Promise<{ statuses: number[]; city: unknown }> => {
      const batch = od.batch();
      let created!: BatchOperation;
      batch.changeset((cs) => { created = cs.create(od.from('Suppliers'), { ID: id, name: 'Across Ltd', city: 'Oslo' }); });
      batch.changeset((cs) => { cs.update(created.ref(), { city: 'Bergen' }); });
      const read = batch.get<Supplier>(created.ref());
      const results = await batch.send({ format: 'json', dependsOnGroups });
      return { statuses: results.map((r) => r.status), city: read.result.value?.city };
    };
    // What CAP takes: dependsOn naming the request only.
    expect(await send(70, false)).toEqual({ statuses: [201, 200, 200], city: 'Bergen' });
    expect((await od.from<Supplier>('Suppliers').key(70).get()).city).toBe('Bergen');
    // Quirk pinned: the spec's form (the other atomicity group listed too) fails in CAP with 424
    // ("Cannot read properties of undefined"), though the create it depends on succeeded.
    expect(await send(71, true)).toEqual({ statuses: [201, 424, 424], city: undefined });
  });
});
