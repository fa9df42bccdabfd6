// Compiles what a reader copies (every ```ts block of the docs, every file of examples/) against the packages
// as published: the tarballs installed in a project, under the strictest settings users run (NodeNext, strict,
// exactOptionalPropertyTypes, noUncheckedIndexedAccess). One TypeScript program for all of them.
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { PRELUDE, type BlockProblem, type CodeBlock } from './code-blocks.js';
import { repoFiles, ROOT } from './repo.js';

/** The files of `examples/` (repository-relative). */
export function exampleFiles(): string[] {
  return repoFiles(join(ROOT, 'examples')).filter((f) => /\.[cm]?ts$/.test(f)).sort();
}

/** The settings of a strict NodeNext project. */
export function nodeNextStrictOptions(): ts.CompilerOptions {
  return {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    skipLibCheck: true,
    noEmit: true,
    // The examples' demo servers (examples/support/) start the unpublished testkit's servers: from the sources.
    paths: { '@sluice/testkit': [join(ROOT, 'packages/testkit/src/index.ts')] },
  };
}

/**
 * Writes `blocks` (each one ES module) and the `examples` files into `<app>/docs-check/` and type-checks them
 * there, where `@sluice/*` resolves to what `app` installed. Problems are reported at their Markdown line or
 * example line; other files' diagnostics (the testkit sources) are not the docs' concern. `alsoRoots` go into
 * the program too (the packages' `.d.ts` entries, so that the public-types check uses the same program).
 */
export function checkAgainstInstalled(app: string, blocks: readonly CodeBlock[], examples: readonly string[], alsoRoots: readonly string[] = []): { problems: BlockProblem[]; program: ts.Program } {
  const dir = join(app, 'docs-check');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-check', private: true, type: 'module' }));
  writeFileSync(join(dir, 'prelude.d.ts'), PRELUDE);
  const checked = new Map<string, CodeBlock | string>();
  blocks.forEach((block, n) => {
    const path = join(dir, 'blocks', `${block.file.replace(/[^\w]+/g, '_')}_${block.line}_${n}.ts`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${block.code}\nexport {};\n`);
    checked.set(path, block);
  });
  for (const file of examples) {
    const path = join(dir, file);
    mkdirSync(dirname(path), { recursive: true });
    cpSync(join(ROOT, file), path);
    checked.set(path, file);
  }
  linkThirdParty(app, dir, [...blocks.map((b) => b.code), ...examples.map((f) => readFileSync(join(ROOT, f), 'utf8'))]);
  const program = ts.createProgram([join(dir, 'prelude.d.ts'), ...checked.keys(), ...alsoRoots], nodeNextStrictOptions());
  const problems: BlockProblem[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const origin = d.file === undefined ? undefined : checked.get(d.file.fileName);
    if (d.file === undefined || d.file.fileName === join(dir, 'prelude.d.ts')) {
      problems.push({ file: 'options or prelude', line: 0, message });
      continue;
    }
    if (origin === undefined) continue;
    const at = d.start === undefined ? 0 : d.file.getLineAndCharacterOfPosition(d.start).line;
    if (typeof origin === 'string') {
      problems.push({ file: origin, line: at + 1, message });
      continue;
    }
    const part = [...origin.parts].reverse().find((p) => p.at <= at) ?? origin.parts[0]!;
    problems.push({ file: origin.file, line: part.line + (at - part.at), message });
  }
  return { problems, program };
}

/**
 * Third-party packages the docs import that the tarballs did not bring (`@opentelemetry/api` for `otel()`,
 * which a reader installs beside sluice): linked into `<dir>/node_modules` from the repository's, so that
 * `@sluice/*` still resolves to the installed tarballs.
 */
function linkThirdParty(app: string, dir: string, sources: readonly string[]): void {
  const names = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]([^'"./][^'"]*)['"]/gm)) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || spec.startsWith('@sluice/')) continue;
      names.add(spec.split('/').slice(0, spec.startsWith('@') ? 2 : 1).join('/'));
    }
  }
  for (const name of names) {
    if (existsSync(join(app, 'node_modules', name)) || !existsSync(join(ROOT, 'node_modules', name))) continue;
    const link = join(dir, 'node_modules', name);
    if (existsSync(link)) continue;
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(ROOT, 'node_modules', name), link, 'dir');
  }
}
