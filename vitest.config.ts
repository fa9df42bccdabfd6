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
    // Hooks start servers and processes (the CLI bundle with esbuild: 2-3 s on a loaded machine, a test server,
    // PostgreSQL, CAP); a hook that does not finish still fails, 60 s after it began.
    hookTimeout: 60_000,
    allowOnly: false,
  },
});
