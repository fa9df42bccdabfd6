import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph } from './import-cycles.js';
import { repoFiles, ROOT } from './repo.js';

describe('import cycles', () => {
  it('finds cycles through type-only imports, re-exports, import() types and index files', () => {
    const files: Record<string, string> = {
      'p/src/a.ts': "import type {\n  B,\n} from './b.js';\nexport const a = 1;",
      'p/src/b.ts': "export { c } from './dir';\nexport type B = number;",
      'p/src/dir/index.ts': "export const c: typeof import('../a.js').a = 1;",
      'p/src/d.ts': "// import { a } from './a.js'\nimport { a } from './a.js';\nexport const d = a;",
      'p/src/e.ts': "export const e = 'import { d } from \"./d.js\"';",
      'p/src/self.ts': "import type { S } from './self.js';\nexport type S = string;",
    };
    const cycles = importCycles(importGraph(Object.keys(files), (f) => files[f]!));
    // d.ts imports into the cycle but is not part of it; comments and strings are no imports.
    expect(cycles).toEqual([['p/src/a.ts', 'p/src/b.ts', 'p/src/dir/index.ts'], ['p/src/self.ts']]);
    expect(importCycles(importGraph(['p/src/d.ts', 'p/src/e.ts', 'p/src/a.ts'], (f) => (f === 'p/src/a.ts' ? '' : files[f]!)))).toEqual([]);
  });

  it('has none in packages/*/src, type-only imports included', () => {
    const files = repoFiles(join(ROOT, 'packages')).filter((f) => /^packages\/[^/]+\/src\/.*\.ts$/.test(f));
    expect(files.length).toBeGreaterThan(100);
    const cycles = importCycles(importGraph(files, (f) => readFileSync(join(ROOT, f), 'utf8')));
    // A cycle is broken by moving what both sides need (types, plain state) into a module both import.
    expect(cycles).toEqual([]);
  });
});
