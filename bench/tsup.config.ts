import { defineConfig } from 'tsup';

// The benchmarks run compiled, with plain node: a loader such as tsx would rewrite sluice's code
// (keepNames wrappers) and slow it down, while the peers from node_modules run untouched.
export default defineConfig({
  entry: ['bench/*.ts', '!bench/tsup.config.ts'],
  outDir: 'bench/.out',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  bundle: true,
  splitting: false,
  sourcemap: false,
  clean: true,
  // Everything from node_modules stays external; sluice's own packages are compiled in from source.
  external: [/^(?!@sluice\/)[^./]/],
  tsconfig: 'tsconfig.json',
});
