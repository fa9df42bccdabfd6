import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Checks the type tests of typed-client.types.ts line by line: `npm run typecheck` only knows that each
// `// @ts-expect-error` line fails somehow; here each must fail with a message naming what is wrong, and
// the file must compile otherwise (under exactOptionalPropertyTypes too, as user projects may set it).

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const fixture = fileURLToPath(new URL('./typed-client.types.ts', import.meta.url));
const DIRECTIVE = /^\s*\/\/ @ts-expect-error "([^"]+)"\s*$/;

interface Finding { line: number; message: string }

function compile(exactOptional: boolean): { expected: Map<number, string>; found: Finding[] } {
  const text = readFileSync(fixture, 'utf8');
  const expected = new Map<number, string>();
  const lines = text.split('\n').map((line, i) => {
    const m = DIRECTIVE.exec(line);
    if (m === null) return line;
    expected.set(i + 1, m[1]!); // the error is expected on the next line (0-based i + 1)
    return line.replace('@ts-expect-error', 'expect-error');
  });
  const stripped = lines.join('\n');
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'], types: ['node'], strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: exactOptional,
    skipLibCheck: true, noEmit: true, baseUrl: root,
    paths: { '@sluice/core': ['packages/core/src/index.ts'], '@sluice/odata': ['packages/odata/src/index.ts'] },
  };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    name === fixture ? ts.createSourceFile(name, stripped, version) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram([fixture], options, host);
  const source = program.getSourceFile(fixture)!;
  const found = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => ({
    line: source.getLineAndCharacterOfPosition(d.start ?? 0).line,
    message: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
  return { expected, found };
}

describe('typed client: type tests', () => {
  for (const exactOptional of [false, true]) {
    it(`every @ts-expect-error line fails for its reason, every other line compiles (exactOptionalPropertyTypes ${exactOptional})`, () => {
      const { expected, found } = compile(exactOptional);
      expect(expected.size).toBeGreaterThan(30);
      const unexpected = found.filter((f) => !expected.has(f.line)).map((f) => `line ${f.line + 1}: ${f.message}`);
      expect(unexpected).toEqual([]);
      const missing = [...expected].filter(([line, text]) => !found.some((f) => f.line === line && f.message.includes(text)))
        .map(([line, text]) => `line ${line + 1}: expected an error naming ${JSON.stringify(text)}, got ${JSON.stringify(found.filter((f) => f.line === line).map((f) => f.message))}`);
      expect(missing).toEqual([]);
    }, 120_000);
  }
});
