import { defineConfig, type Options } from 'tsup';

type TsupPlugin = NonNullable<Options['plugins']>[number];

/**
 * Gives bundled classes back their own names. esbuild writes a class that refers to itself as
 * `var HttpError = class _HttpError ...`, so `HttpError.name` (and every error's `name`, which is
 * `new.target.name`) became `_HttpError`. Inside the class expression its own name is bound to the class,
 * so `_HttpError` can be spelled `HttpError` there. The replacement keeps the identifier's length
 * (`HttpError ` with a space) so every column, and with it the source map, stays exact. Cheaper than
 * esbuild's `keepNames`, which wraps every function and class in a naming call.
 */
export function classNames(): TsupPlugin {
  return {
    name: 'sluice-class-names',
    renderChunk(code) {
      const renamed = new Map<string, string>();
      for (const m of code.matchAll(/^(?:var|let|const) ([A-Za-z$][\w$]*) = class (_+\1) /gm)) {
        const [, name, inner] = m;
        if (name !== undefined && inner !== undefined) renamed.set(inner, name.padEnd(inner.length, ' '));
      }
      if (renamed.size === 0) return undefined;
      const pattern = new RegExp(`(?<![\\w$.])(${[...renamed.keys()].join('|')})(?![\\w$])`, 'g');
      return { code: code.replace(pattern, (inner) => renamed.get(inner) ?? inner) };
    },
  };
}

/** The build every published package shares: ESM + CJS + `.d.ts` from `src/index.ts`, for Node 20+. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  // `@internal` members stay out of the published types.
  dts: { compilerOptions: { stripInternal: true } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  plugins: [classNames()],
});
