import { defineConfig } from 'tsup';

/** The `sluice` executable: one ESM file for Node 20+, dependencies left to npm. */
export default defineConfig({
  entry: { sluice: 'src/sluice.ts' },
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});
