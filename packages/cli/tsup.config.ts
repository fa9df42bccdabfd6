import { defineConfig } from 'tsup';

/**
 * The `sluice` executable: ESM for Node 20+, dependencies left to npm. Code splitting: each command's
 * implementation (and the packages only it needs) is its own chunk, loaded by `import()` when it runs.
 */
export default defineConfig({
  entry: { sluice: 'src/sluice.ts' },
  format: ['esm'],
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
