import { defineConfig } from 'tsup';
import shared from '../../tsup.package.js';

// The shared build, with one difference: npm builds the workspaces in folder order, so `codegen` is built
// before `core` and `odata` have a dist/. Its declarations are checked against their sources instead (no
// type of theirs is in the public API of @sluice/codegen, so nothing of them is copied into its .d.ts).
export default defineConfig({
  ...(shared as object),
  dts: {
    compilerOptions: {
      baseUrl: '../..',
      paths: { '@sluice/core': ['packages/core/src/index.ts'], '@sluice/odata': ['packages/odata/src/index.ts'] },
    },
  },
});
