import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (pkg: string): string => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      '@sluice/codegen': src('codegen'),
      '@sluice/core': src('core'),
      '@sluice/oauth': src('oauth'),
      '@sluice/odata': src('odata'),
      '@sluice/redis': src('redis'),
      '@sluice/queue': src('queue'),
      '@sluice/sink': src('sink'),
      '@sluice/testkit': src('testkit'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    allowOnly: false,
  },
});
