// One JavaScript type per EDM type on v2 and v4: the same CAP model read through OData v4 and through the v2
// adapter gives the same records (v2's /Date(ms+0000)/, sap:display-format="Date" and verbose JSON decoded
// into the forms v4 sends), by default as ISO text and with dates: 'Date' as Date objects.
import { describe, expect, it } from 'vitest';
import type { ODataClient } from '@sluice/odata';
import { useCapServer } from './support/cap-server.js';
import { v2Client, v4Client } from './support/clients.js';

const cap = useCapServer();

/** Records without the ETag annotation (its spelling is the adapter's). */
function plain(rows: unknown[]): unknown[] {
  return rows.map((r) => {
    const { '@odata.etag': _etag, ...rest } = r as Record<string, unknown>;
    for (const k of Object.keys(rest)) if (rest[k] !== null && typeof rest[k] === 'object' && !(rest[k] instanceof Date)) rest[k] = plain([rest[k]])[0];
    return rest;
  });
}

async function read(od: ODataClient): Promise<unknown[]> {
  const parts = await od.from('Parts').orderBy('ID').expand('supplier').list();
  const readings = await od.from('Readings').orderBy('seq').top(3).list();
  const one = await od.from('Suppliers').key(2).get();
  await od.close();
  return [...plain(parts), ...plain(readings), ...plain([one])];
}

describe('CAP v4 and v2 adapter read the same values', () => {
  it('by default: ISO 8601 text (Z, fraction by Precision), Edm.Date / display-format Date as YYYY-MM-DD, Int64 and Decimal strings', async () => {
    const v4 = await read(v4Client(cap(), { loadMetadata: true }));
    const v2 = await read(v2Client(cap(), { loadMetadata: true }));
    expect(v2).toEqual(v4);
    expect(v4).toContainEqual(expect.objectContaining({ ID: 4, releasedAt: '2025-03-02T12:00:00Z', stock: '9007199254740993' }));
    expect(v4).toContainEqual(expect.objectContaining({ seq: 1, at: '2026-01-01T00:00:00.000Z' }));
    expect(v4).toContainEqual(expect.objectContaining({ ID: 2, since: '2020-02-29' }));
  });

  it("with dates: 'Date': instants as Date objects on both versions, calendar dates still YYYY-MM-DD", async () => {
    const v4 = await read(v4Client(cap(), { dates: 'Date' }));
    const v2 = await read(v2Client(cap(), { dates: 'Date' }));
    expect(v2).toEqual(v4);
    expect(v4).toContainEqual(expect.objectContaining({ ID: 4, releasedAt: new Date('2025-03-02T12:00:00Z') }));
    expect(v4).toContainEqual(expect.objectContaining({ ID: 2, since: '2020-02-29' }));
  });
});
