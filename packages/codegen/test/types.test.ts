// Compiles the generated files and their type tests (test/types/*.types.ts) with the TypeScript API, with
// exactOptionalPropertyTypes on and off: every `// @ts-expect-error` line must fail to compile and every
// other line must compile, so a change that loosens or breaks the generated typing fails here.
// One program per setting holds every type test (each file a module of its own), so the sources are checked once per setting.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const typesDir = join(dirname(fileURLToPath(import.meta.url)), 'types/');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;

interface Compiled { expected: number[]; found: Array<{ line: number; message: string }> }

const files = readdirSync(typesDir).filter((f) => f.endsWith('.types.ts'));

/** A type test's text with its `// @ts-expect-error` directives disarmed, and the lines that had one. */
function strip(file: string): { text: string; expected: number[] } {
  const expected: number[] = [];
  const text = readFileSync(file, 'utf8').split('\n').map((line, i) => {
    if (!DIRECTIVE.test(line)) return line;
    expected.push(i + 1);
    return line.replace('@ts-expect-error', 'expect-error');
  }).join('\n');
  return { text, expected };
}

// Parsed files shared by both settings' programs (parsing does not depend on exactOptionalPropertyTypes).
const parsed = new Map<string, ts.SourceFile | undefined>();
const programs = new Map<boolean, ts.Program>();

/**
 * One program per setting over every type test (each one module: they do not see each other), instead of a
 * program per file: the sources of core and odata are read and checked once per setting.
 */
function programFor(exactOptional: boolean): ts.Program {
  const known = programs.get(exactOptional);
  if (known) return known;
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: ['node'], strict: true, noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: exactOptional, skipLibCheck: true, noEmit: true, baseUrl: root,
    paths: { '@sluice/core': ['packages/core/src/index.ts'], '@sluice/odata': ['packages/odata/src/index.ts'] },
  };
  const roots = files.map((name) => `${typesDir}${name}`);
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) => {
    if (!parsed.has(name)) parsed.set(name, roots.includes(name) ? ts.createSourceFile(name, strip(name).text, version) : getSourceFile(name, version, onError, create));
    return parsed.get(name);
  };
  const program = ts.createProgram(roots, options, host);
  programs.set(exactOptional, program);
  return program;
}

function compile(file: string, exactOptional: boolean): Compiled {
  const { expected } = strip(file);
  const program = programFor(exactOptional);
  // The type test and the generated files it imports.
  const generated = [...readFileSync(file, 'utf8').matchAll(/from '\.\.\/generated\/([\w-]+)\.js'/g)].map((m) => join(dirname(typesDir), 'generated', `${m[1]}.ts`));
  const diagnostics = program.getSourceFiles()
    .filter((s) => s.fileName === file || (s.fileName.includes('/codegen/test/generated/') && generated.includes(s.fileName)))
    .flatMap((s) => [...program.getSyntacticDiagnostics(s), ...program.getSemanticDiagnostics(s)]);
  const found = diagnostics.map((d) => ({
    line: d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line : -1,
    message: `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  }));
  return { expected, found };
}

describe('generated types compile and type what they should', () => {
  it('has type tests', () => expect(files.length).toBeGreaterThan(0));
  for (const name of files) {
    for (const exactOptional of [true, false]) {
      it(`${name}: each @ts-expect-error line fails, every other line compiles (exactOptionalPropertyTypes ${exactOptional})`, () => {
        const { expected, found } = compile(`${typesDir}${name}`, exactOptional);
        expect(expected.length).toBeGreaterThan(5);
        expect(found.filter((f) => !expected.includes(f.line)).map((f) => `line ${f.line + 1}: ${f.message}`)).toEqual([]);
        expect(expected.filter((line) => !found.some((f) => f.line === line)).map((line) => `line ${line + 1} compiles`)).toEqual([]);
      }, 120_000);
    }
  }
});
