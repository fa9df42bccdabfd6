import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoFiles, ROOT } from './repo.js';

// A fresh clone has nothing beside it: whatever a test, benchmark, script, example or document needs
// must be inside the repository.

const TEXT = /\.(?:[cm]?[jt]s|json|md|ya?ml|sh|txt)$|^\.ci\/run$/;
/** Files that are data, not references: the vendored grammar and npm's lock file. */
const DATA = /(?:^|\/)package-lock\.json$|\/odata-abnf\/.*\.txt$/;

const files = repoFiles().filter((f) => TEXT.test(f) && !DATA.test(f));

/**
 * `../` chains as they start a path in code or text (after a quote, bracket, space or `=`), followed by
 * a name (so RFC 3986 test vectors such as `../../g` and bare `../..` are not taken for files).
 */
const PARENT_CHAIN = /(?<=^|['"`(\s=])((?:\.\.\/)+)([A-Za-z_][\w.-]+[^\s'"`)\]]*)/g;
/** The team's folder beside the checkout, which no clone has. Built from parts so this file does not match itself. */
const SIBLING = new RegExp(['\\.\\./', 'shared/'].join(''), 'g');
/** Absolute paths of a particular machine. Built from parts so this file does not match itself. */
const MACHINE_PATH = new RegExp(`(?<=^|['"\`(\\s=])/(?:${['work', 'home', 'Users', 'root', 'mnt'].join('|')})/[\\w.-]+`, 'g');

function outsideRoot(path: string): boolean {
  const rel = relative(ROOT, path);
  return rel.startsWith('..') || isAbsolute(rel);
}

describe('the repository is self-contained', () => {
  it('has files to check (the walk found the sources, tests and docs)', () => {
    expect(files).toContain('README.md');
    expect(files.some((f) => f.startsWith('packages/core/test/'))).toBe(true);
  });

  it('no file refers to a path above the repository root', () => {
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(resolve(ROOT, file), 'utf8');
      for (const m of text.matchAll(PARENT_CHAIN)) {
        const target = resolve(ROOT, dirname(file), `${m[1] ?? ''}${m[2] ?? ''}`);
        if (outsideRoot(target)) found.push(`${file}: ${m[0]}`);
      }
      for (const m of text.matchAll(SIBLING)) found.push(`${file}: ${m[0]}`);
    }
    expect(found, 'paths that leave the repository: vendor what they point at, or write it into docs/').toEqual([]);
  });

  it('no file names an absolute path of a particular machine', () => {
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(resolve(ROOT, file), 'utf8');
      for (const m of text.matchAll(MACHINE_PATH)) found.push(`${file}: ${m[0]}`);
    }
    expect(found).toEqual([]);
  });

  it('every relative Markdown link points at a file of the repository that exists', () => {
    const broken: string[] = [];
    for (const file of files.filter((f) => f.endsWith('.md'))) {
      const text = readFileSync(resolve(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const link = m[1] ?? '';
        if (/^(?:[a-z][a-z+.-]*:|#)/i.test(link)) continue;
        const target = resolve(ROOT, dirname(file), decodeURI(link.replace(/#.*$/, '')));
        if (outsideRoot(target) || !existsSync(target)) broken.push(`${file}: ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
