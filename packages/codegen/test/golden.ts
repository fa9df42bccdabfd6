// The vendored and hand-written metadata documents the generator is checked on, and the files generated
// from them (test/generated/, compiled by `npm run typecheck` with test/types/). After a deliberate change
// of the output, write them again with `npx tsx packages/codegen/test/golden.ts` and review the diff.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, type GenerateOptions } from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));

export interface Golden { name: string; metadata: string; options?: GenerateOptions }

export const GOLDEN: readonly Golden[] = [
  { name: 'trippin', metadata: 'fixtures/trippin/trippin.xml' },
  { name: 'odata-demo-v2', metadata: 'fixtures/odata-demo-v2/odata-v2.xml' },
  { name: 'features-v4', metadata: 'fixtures/handmade/features-v4.xml' },
  { name: 'features-v2', metadata: 'fixtures/handmade/features-v2.xml' },
  { name: 'testkit-v4', metadata: 'fixtures/testkit/v4.xml' },
  { name: 'testkit-v2', metadata: 'fixtures/testkit/v2.xml' },
  { name: 's4hana-enterprise-project-v2', metadata: 'fixtures/s4hana/S4HC_API_ENTERPRISE_PROJECT_SRV_0002.edmx' },
  { name: 's4hana-sales-order-v4', metadata: 'fixtures/s4hana/S4HC_CE_SALESORDER_0001.edmx' },
  { name: 's4hana-project-profile-code-v4', metadata: 'fixtures/s4hana/S4HC_ENTPROJECTPROFILECODE_0001.edmx' },
  { name: 'features-v2-dates', metadata: 'fixtures/handmade/features-v2.xml', options: { dates: 'Date', largeNumbers: 'number', only: ['A_SalesOrderItem', 'ReleaseOrder'] } },
];

/** The text generated for a golden entry now. */
export function generated(g: Golden): string {
  return generate(readFileSync(join(here, g.metadata), 'utf8'), { source: basename(g.metadata), ...g.options });
}

/** Where the committed output of a golden entry is. */
export const goldenPath = (g: Golden): string => join(here, 'generated', `${g.name}.ts`);

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const g of GOLDEN) writeFileSync(goldenPath(g), generated(g));
}
