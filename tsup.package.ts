import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Options } from 'tsup';
import ts from 'typescript';

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

/**
 * Removes the members (of classes, interfaces, type literals) whose doc comment says `@internal` from a
 * bundled `.d.ts`, and the tag from the comments of other declarations. TypeScript's own `stripInternal`
 * also drops module-level declarations, which breaks the bundle whenever another module imports one; a
 * module-level helper stays in the types only where the public API refers to it.
 *
 * A class whose every constructor is internal keeps `protected constructor();`: without any, the types
 * would offer a public constructor without parameters (`new Batch()`) that the class does not have.
 * (An `@internal` tag on a constructor parameter property does not reach the `.d.ts`: declare such a
 * property as a field.)
 */
export function stripInternalMembers(text: string): string {
  const source = ts.createSourceFile('index.d.ts', text, ts.ScriptTarget.Latest, true);
  const cuts: [number, number, string][] = [];
  const internal = (node: ts.Node): boolean => ts.getJSDocTags(node).some((tag) => tag.tagName.text === 'internal');
  const visit = (node: ts.Node): void => {
    if (ts.isClassDeclaration(node) || ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      for (const member of node.members) if (internal(member)) cuts.push([member.getFullStart(), member.getEnd(), '']);
    }
    if (ts.isClassDeclaration(node)) {
      const constructors = node.members.filter(ts.isConstructorDeclaration);
      const first = constructors[0];
      if (first !== undefined && constructors.every(internal)) {
        const cut = cuts.find(([start]) => start === first.getFullStart());
        if (cut) cut[2] = '\n    protected constructor();';
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  let out = text;
  for (const [start, end, keep] of cuts.sort((a, b) => b[0] - a[0])) out = out.slice(0, start) + keep + out.slice(end);
  return out.replace(/\/\*\*\s*@internal\s*\*\/\s*\n/g, '').replace(/[ \t]*@internal\b[ \t]*/g, ' ');
}

/** Applies {@link stripInternalMembers} to every `.d.ts`/`.d.cts` in `dir`. */
function stripInternalIn(dir: string): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (!/\.d\.c?ts$/.test(name)) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const stripped = stripInternalMembers(text);
    if (stripped !== text) writeFileSync(file, stripped);
  }
}

// tsup writes the `.d.ts` in a worker and offers no hook after it: the types are finished when the build
// process exits, so they are post-processed then (synchronously, as an exit handler must).
process.once('exit', () => stripInternalIn(join(process.cwd(), 'dist')));

/** The build every published package shares: ESM + CJS + `.d.ts` from `src/index.ts`, for Node 20+. */
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  plugins: [classNames()],
});
