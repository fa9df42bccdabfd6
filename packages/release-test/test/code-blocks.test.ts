import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkBlocks, documentedFiles, extractBlocks, type BlockProblem, type CodeBlock } from './code-blocks.js';
import { ROOT } from './repo.js';

// The docs' blocks and the test block below with a type error go into one TypeScript program over the sources
// (a program is 10 s alone, far more on a loaded machine): built once, by the first test that needs it.
const failing = extractBlocks('x.md', ['# t', '```ts', "import { createClient } from '@sluice/core'", 'const c = createClient({})', '```', '```ts continued', 'const n: number = c', '```'].join('\n')).blocks;
let docs: { blocks: CodeBlock[]; problems: BlockProblem[]; checked: BlockProblem[] } | undefined;
function checkDocs(): NonNullable<typeof docs> {
  if (docs) return docs;
  const blocks: CodeBlock[] = [];
  const problems: BlockProblem[] = [];
  for (const file of documentedFiles()) {
    const found = extractBlocks(file, readFileSync(join(ROOT, file), 'utf8'));
    blocks.push(...found.blocks);
    problems.push(...found.problems);
  }
  docs = { blocks, problems, checked: checkBlocks([...blocks, ...failing]) };
  return docs;
}

describe('documentation examples compile with strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess', () => {
  it('reads the markers: continued joins a block to the one before, ignore needs a reason, others are refused', () => {
    const md = ['```ts', 'const a = 1', '```', 'text', '```ts continued', 'a satisfies number', '```', '```ts ignore shows a type error', 'x', '```', '```ts ignore', '```', '```ts contnued', '```'].join('\n');
    const { blocks, problems } = extractBlocks('x.md', md);
    expect(blocks).toEqual([{ file: 'x.md', line: 2, code: 'const a = 1\na satisfies number', parts: [{ at: 0, line: 2 }, { at: 1, line: 6 }] }]);
    expect(problems.map((p) => p.line)).toEqual([12, 14]);
  });

  it('reports a type error at its Markdown line', () => {
    // Its own problems, and any of the prelude's (which every block shares).
    const problems = checkDocs().checked.filter((p) => p.file === 'x.md' || p.file === 'prelude');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ file: 'x.md', line: 7 });
  }, 120_000); // one TypeScript program over the sources: 10 s alone, far more on a loaded machine

  it('every ts block of the READMEs and docs type-checks', () => {
    expect(documentedFiles()).toContain('README.md');
    const { blocks, checked } = checkDocs();
    expect(blocks.length).toBeGreaterThan(5);
    const problems = [...checkDocs().problems, ...checked.filter((p) => p.file !== 'x.md')];
    expect(problems.map((p) => `${p.file}:${p.line}: ${p.message}`)).toEqual([]);
  }, 120_000);
});
