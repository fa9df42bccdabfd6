// Compiles the generated files and their type tests (test/types/*.types.ts) with the TypeScript API, with
// exactOptionalPropertyTypes on and off: every `// @ts-expect-error` line must fail to compile and every
// other line must compile, so a change that loosens or breaks the generated typing fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const typesDir = join(dirname(fileURLToPath(import.meta.url)), 'types/');
const DIRECTIVE = /^\s*\/\/ @ts-expect-error\b/;

function compile(file: string, exactOptional: boolean): { expected: number[]; found: Array<{ line: number; message: string }> } {
  const expected: number[] = [];
  const stripped = readFileSync(file, 'utf8').split('\n').map((line, i) => {
    if (!DIRECTIVE.test(line)) return line;
    expected.push(i + 1);
    return line.replace('@ts-expect-error', 'expect-error');
  }).join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: ['node'], strict: true, noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: exactOptional, skipLibCheck: true, noEmit: true, baseUrl: root,
    paths: { '@sluice/core': ['packages/core/src/index.ts'], '@sluice/odata': ['packages/odata/src/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    name === file ? ts.createSourceFile(name, stripped, version) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram([file], options, host);
  const diagnostics = program.getSourceFiles()
    .filter((s) => s.fileName === file || s.fileName.includes('/codegen/test/generated/'))
    .flatMap((s) => [...program.getSyntacticDiagnostics(s), ...program.getSemanticDiagnostics(s)]);
  const found = diagnostics.map((d) => ({
    line: d.file ? d.file.getLineAndCharacterOfPosition(d.start ?? 0).line : -1,
    message: `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
  }));
  return { expected, found };
}

const files = readdirSync(typesDir).filter((f) => f.endsWith('.types.ts'));

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
