import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@sluice/core';
import { createODataClient } from '@sluice/odata';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { checkBlocksWith } from './code-blocks.js';
import { optionalWithoutUndefined } from './optional-properties.js';
import { publishablePackages, ROOT } from './repo.js';

// Public options accept an explicit `undefined` (`?: T | undefined`): under exactOptionalPropertyTypes a
// wrapper passes `signal: AbortSignal | undefined` through as it is.

const entries = publishablePackages().map((p) => join(p.path, 'src/index.ts')).filter((f) => existsSync(f));
const fixture = 'packages/release-test/test/fixtures/explicit-undefined.ts';

// The wrapper fixture and every package's entry in one TypeScript program (strict settings, sources),
// which both type checks below read: built once, by the first that needs it.
let checked: ReturnType<typeof checkBlocksWith> | undefined;
function check(): ReturnType<typeof checkBlocksWith> {
  const code = readFileSync(join(ROOT, fixture), 'utf8');
  checked ??= checkBlocksWith([{ file: fixture, line: 1, code, parts: [{ at: 0, line: 1 }] }], entries);
  return checked;
}

describe('optional options accept an explicit undefined', () => {
  it('every optional property the public API reaches says `| undefined` (all publishable packages)', () => {
    const { program } = check();
    const sources = join(ROOT, 'packages');
    const found = optionalWithoutUndefined(program, entries, (f) => f.startsWith(sources) && f.includes('/src/'));
    expect(entries.length).toBeGreaterThan(3);
    expect(found.map((f) => f.slice(ROOT.length + 1)), 'write `name?: T | undefined`').toEqual([]);
  }, 120_000);

  it('a wrapper passing possibly-undefined values to the common options compiles with exactOptionalPropertyTypes', () => {
    expect(check().problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  }, 120_000);

  describe('at run time an explicit undefined means the default', () => {
    let service: ODataTestServer;
    beforeAll(async () => {
      service = await startODataServer({ products: 30, pageSize: 10 });
    });
    afterAll(() => service?.close());

    it('client, query and per-call options given as undefined read as if left out', async () => {
      const client = createClient({ baseURL: undefined, timeout: undefined, deadline: undefined, headers: undefined, retry: undefined });
      const od = createODataClient({ serviceURL: service.v4, client, version: undefined, loadMetadata: undefined, pageRetries: undefined, maxPages: undefined });
      try {
        const rows = await od.from('Products').list({ signal: undefined, timeout: undefined, deadline: undefined, headers: undefined });
        expect(rows).toHaveLength(30);
        let n = 0;
        for await (const item of od.from('Products').stream({ signal: undefined, prefetch: undefined, maxPageSize: undefined })) if (!item.error) n++;
        expect(n).toBe(30);
      } finally {
        await od.close();
        await client.close();
      }
    });
  });
});
