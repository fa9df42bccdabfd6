// Edm.Double and Edm.Binary through CAP's v4 service and its v2 adapter (srv/measures.cds): the adapter writes
// Doubles as JSON strings (IEEE754Compatible) and Binary as base64; sluice reads both as the EDM table says
// (numbers, base64url), the same records on both versions.
import { describe, expect, it } from 'vitest';
import { useCapServer } from './support/cap-server.js';
import { rawGet, v2Client, v4Client } from './support/clients.js';

const cap = useCapServer();

interface Measure { ID: number; value: number | null; blob: string | null }

/** The measures service's root (srv/measures.cds) on v4 or through the v2 adapter. */
const root = (version: 'v2' | 'v4'): string => `${cap().origin}/odata/${version}/measures/`;

describe('CAP: Edm.Double and Edm.Binary on v4 and the v2 adapter', () => {
  it('the adapter sends Doubles as strings and Binary as base64; sluice reads numbers and base64url, the same as v4', async () => {
    const raw = JSON.parse((await rawGet(`${root('v2')}Measures?$orderby=ID`)).body) as { d: { results: Record<string, unknown>[] } };
    expect(typeof raw.d.results[0]!['value']).toBe('string');
    const v4 = v4Client({ ...cap(), v4: root('v4') }, { loadMetadata: true });
    const v2 = v2Client({ ...cap(), v2: root('v2') }, { loadMetadata: true });
    const read4 = (await v4.from<Measure>('Measures').orderBy('ID').list()).map(({ ID, value, blob }) => ({ ID, value, blob }));
    const read2 = (await v2.from<Measure>('Measures').orderBy('ID').list()).map(({ ID, value, blob }) => ({ ID, value, blob }));
    await Promise.all([v4.close(), v2.close()]);
    expect(read4.map((m) => m.value)).toEqual([150, 0.000125, -2.5e21, null]);
    expect(read2).toEqual(read4);
    expect(read4.map((m) => (m.blob === null ? null : [...Buffer.from(m.blob, 'base64url')]))).toEqual([[0xfb, 0xff, 0x3e], [0x00, 0xff], [0xfb, 0xef], null]);
    expect(read2.map((m) => m.blob)).toEqual(['-_8-', 'AP8=', '--8=', null]);
  });
});
