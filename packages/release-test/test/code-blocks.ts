// Extracts the ```ts blocks of the project's Markdown and type-checks them as users would compile them.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT, workspaces } from './repo.js';

export interface CodeBlock {
  /** Repository-relative Markdown file. */
  file: string;
  /** 1-based line of the block's first code line in the Markdown file. */
  line: number;
  code: string;
  /** Line in `code` where each appended part starts, with its Markdown line (for `continued` blocks). */
  parts: { at: number; line: number }[];
}

export interface BlockProblem {
  file: string;
  line: number;
  message: string;
}

const FENCE = /^ {0,3}```(ts|typescript)\b[ \t]*(.*)$/;

/**
 * The TypeScript blocks of one Markdown text. Info-string markers: `ts continued` appends to the
 * previous block of the file (one module); `ts ignore <reason>` leaves the block out. Anything else after
 * `ts` is refused, so a typo cannot silently skip a block.
 */
export function extractBlocks(file: string, text: string): { blocks: CodeBlock[]; problems: BlockProblem[] } {
  const lines = text.split('\n');
  const blocks: CodeBlock[] = [];
  const problems: BlockProblem[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? '');
    if (!open) {
      if (/^ {0,3}```/.test(lines[i] ?? '')) i = closeOf(lines, i);
      continue;
    }
    const end = closeOf(lines, i);
    const code = lines.slice(i + 1, end).join('\n');
    const marker = (open[2] ?? '').trim();
    const line = i + 2;
    i = end;
    if (marker === '') blocks.push({ file, line, code, parts: [{ at: 0, line }] });
    else if (marker === 'continued') {
      const previous = blocks.at(-1);
      if (previous === undefined) problems.push({ file, line, message: '`ts continued` with no block before it' });
      else {
        previous.parts.push({ at: previous.code.split('\n').length, line });
        previous.code += `\n${code}`;
      }
    } else if (/^ignore\s+\S/.test(marker)) continue;
    else problems.push({ file, line, message: `unknown marker "${marker}" (use "continued" or "ignore <reason>")` });
  }
  return { blocks, problems };
}

/** Index of the closing fence of the block opened at `open` (or the last line). */
function closeOf(lines: string[], open: number): number {
  for (let j = open + 1; j < lines.length; j++) if (/^ {0,3}```\s*$/.test(lines[j] ?? '')) return j;
  return lines.length;
}

/** Markdown files whose examples must compile: the READMEs, package documents and `docs/`. */
export function documentedFiles(): string[] {
  const out = ['README.md', 'CONTRIBUTING.md'];
  for (const p of workspaces()) {
    for (const name of ['README.md', 'RESILIENCE.md']) if (existsSync(join(p.path, name))) out.push(`packages/${p.dir}/${name}`);
  }
  const docs = join(ROOT, 'docs');
  if (existsSync(docs)) {
    for (const name of ts.sys.readDirectory(docs, ['.md'], undefined, undefined, 1)) out.push(`docs/${name.slice(docs.length + 1)}`);
  }
  return out.filter((f) => existsSync(join(ROOT, f))).sort();
}

/**
 * Free names that examples may use without declaring them, as a reader would assume them from the text
 * around the block. Add a name here when an example needs one more.
 */
export const PRELUDE = `
declare const client: import('@sluice/core').Client;
declare const od: import('@sluice/odata').ODataClient;
declare const signal: AbortSignal;
declare const config: import('@sluice/oauth').OAuth2Config;
declare const baseURL: string;
declare const userId: string;
declare const requestURL: string;
declare function handle(value: unknown): void;
/** A node-redis client, as the custom token cache example assumes. */
declare const redis: {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, options: { PXAT: number }): Promise<unknown>;
  del(key: string): Promise<unknown>;
};
`;

/** The settings of the strictest users: what the examples must compile under. */
export function strictOptions(): ts.CompilerOptions {
  const paths: Record<string, string[]> = {};
  for (const p of workspaces()) {
    if (existsSync(join(p.path, 'src/index.ts'))) paths[p.json.name] = [join(p.path, 'src/index.ts')];
  }
  return {
    strict: true,
    exactOptionalPropertyTypes: true,
    noUncheckedIndexedAccess: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    types: ['node'],
    typeRoots: [join(ROOT, 'node_modules/@types')],
    skipLibCheck: true,
    noEmit: true,
    baseUrl: ROOT,
    paths,
  };
}

/** Type-checks `blocks` (each one module) with {@link strictOptions}; returns the problems, mapped to Markdown lines. */
export function checkBlocks(blocks: CodeBlock[]): BlockProblem[] {
  return checkBlocksWith(blocks).problems;
}

/**
 * {@link checkBlocks}, with `alsoRoots` (files of the repository) in the same program, which is returned for
 * other checks to read: one program instead of two over the same sources.
 */
export function checkBlocksWith(blocks: CodeBlock[], alsoRoots: readonly string[] = []): { problems: BlockProblem[]; program: ts.Program } {
  const dir = join(ROOT, 'packages/release-test/.examples');
  const virtual = new Map<string, { block: CodeBlock | undefined; text: string }>();
  virtual.set(join(dir, 'prelude.d.ts'), { block: undefined, text: PRELUDE });
  blocks.forEach((block, n) => {
    const name = `${block.file.replace(/[^\w]+/g, '_')}_${block.line}_${n}.ts`;
    virtual.set(join(dir, name), { block, text: `${block.code}\nexport {};\n` });
  });
  const options = strictOptions();
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (f) => virtual.has(f) || fileExists.call(host, f);
  host.readFile = (f) => virtual.get(f)?.text ?? readFile.call(host, f);
  host.getSourceFile = (f, language, ...rest) => {
    const v = virtual.get(f);
    return v ? ts.createSourceFile(f, v.text, language, true) : getSourceFile.call(host, f, language, ...rest);
  };
  const program = ts.createProgram([...virtual.keys(), ...alsoRoots], options, host);
  const problems: BlockProblem[] = [];
  for (const [path, { block }] of virtual) {
    const source = program.getSourceFile(path);
    if (source === undefined) continue;
    const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
    for (const d of diagnostics) {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (block === undefined) {
        problems.push({ file: 'prelude', line: at + 1, message });
        continue;
      }
      const part = [...block.parts].reverse().find((p) => p.at <= at) ?? block.parts[0]!;
      problems.push({ file: block.file, line: part.line + (at - part.at), message });
    }
  }
  return { problems, program };
}
