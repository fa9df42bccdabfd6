// A client typed by what `sluice generate` writes from CAP's $metadata (test/generated/cap-v4.ts and -v2.ts),
// used for real: the committed types still match the metadata CAP serves (check()), and reads, a create, a
// bound and an unbound action and functions compile against them and run. The v2 adapter reads the same.
import { readFileSync } from 'node:fs';
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { check } from '@sluice/codegen';
import { useCapServer } from './support/cap-server.js';
import { createODataClient } from '@sluice/odata';
import type { Parts, Service as V4 } from './generated/cap-v4.js';
import type { Service as V2, Suppliers } from './generated/cap-v2.js';

const cap = useCapServer();

/** A GET with node:http's default headers: the v2 adapter answers fetch()'s $metadata request with a 500. */
function plainGet(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => { body += c; }).on('end', () => resolve(body)).on('error', reject);
    }).on('error', reject);
  });
}

describe('CAP: a client typed by the generated types', () => {
  it('the committed types match the $metadata CAP serves (v4 and the v2 adapter)', async () => {
    for (const v of ['v4', 'v2'] as const) {
      const generated = readFileSync(new URL(`./generated/cap-${v}.ts`, import.meta.url), 'utf8');
      const metadata = await plainGet(`${cap()[v]}$metadata`);
      expect(metadata.slice(0, 60), v).toMatch(/^<\?xml/);
      expect(check(generated, metadata), v).toEqual({ upToDate: true, changes: [] });
    }
  });

  it('v4: reads, create, bound and unbound actions, functions', async () => {
    const od = createODataClient<V4>({ serviceURL: cap().v4, version: '4.0', http: { retry: false, timeout: 30_000 } });
    const cheap: Pick<Parts, 'ID' | 'price'>[] = await od.from('Parts').select('ID', 'price').filter((f) => f.le('price', '9')).orderBy('ID').list();
    expect(cheap.length).toBeGreaterThan(0);
    expect(cheap.every((p) => Number(p.price) <= 9)).toBe(true);
    const part = await od.from('Parts').key(2).expand('supplier').get();
    expect(part.supplier?.ID).toBe(part.supplier_ID);
    const created = await od.from('Suppliers').create({ ID: 40, name: 'Typed Tools', city: 'Graz', since: '2024-05-06' });
    expect(created.value).toMatchObject({ ID: 40, since: '2024-05-06' });
    const restocked = await od.from('Parts').key(2).action('InteropService.restock', { quantity: 5 }).execute({ etag: part });
    expect(restocked.value).toMatchObject({ ID: 2, stock: String(BigInt(part.stock!) + 5n) });
    expect((await od.action('renameSupplier', { ID: 40, name: 'Typed' }).execute()).value).toBe(0);
    expect((await od.function('partsIn', { city: 'Berlin', maxPrice: '8' }).execute()).map((p) => p.ID)).toEqual([2, 3]);
    expect(await od.function('stockOf', { ID: 4 }).execute()).toBe('9007199254740993');
  });

  it('v2: the same model through the adapter, function imports by their method', async () => {
    const od = createODataClient<V2>({ serviceURL: cap().v2, version: '2.0', loadMetadata: true, http: { retry: false, timeout: 30_000 } });
    const supplier = await od.from('Suppliers').key(2).select('ID', 'since').get();
    expect(supplier).toMatchObject({ ID: 2, since: '2020-02-29' });
    // v2 $select through a navigation property: the expanded value holds what was selected through it, as typed.
    const parts: Array<Pick<Parts, 'ID'> & { supplier: Pick<Suppliers, 'name'> | null }> = await od.from('Parts')
      .select('ID', 'supplier/name').expand('supplier').orderBy('ID').top(2).list();
    expect(parts.length).toBe(2);
    for (const p of parts) {
      // What was typed is there; what was not selected is not (CAP adds the ETag property, modifiedAt, besides).
      expect(typeof p.ID).toBe('number');
      expect(p).not.toHaveProperty('price');
      expect(typeof p.supplier?.name).toBe('string');
      expect(p.supplier).not.toHaveProperty('city');
    }
    expect(await od.function('stockOf', { ID: 4 }).execute()).toBe('9007199254740993');
  });
});
