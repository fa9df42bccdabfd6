import { defineConfig } from 'tsup';

/** The build every published package shares: ESM + CJS + `.d.ts` from `src/index.ts`, for Node 20+. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
