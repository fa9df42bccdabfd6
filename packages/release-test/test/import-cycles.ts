// Import cycles between the source files of the packages: every relative import counts, type-only ones,
// `export ... from` and `import()` included, since a cycle of types is as hard to follow as one of values.
import { dirname, join, normalize } from 'node:path/posix';
import ts from 'typescript';

/** The relative modules `source` imports, resolved against `file` (`./x.js` -> `x.ts`, `./dir` -> `dir/index.ts`). */
export function importsOf(file: string, source: string, exists: (path: string) => boolean): string[] {
  const { importedFiles } = ts.preProcessFile(source, true, true);
  const out: string[] = [];
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('./') && !fileName.startsWith('../')) continue;
    const base = normalize(join(dirname(file), fileName));
    const candidates = [base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
    const found = candidates.find((c) => c.endsWith('.ts') && exists(c));
    if (found !== undefined) out.push(found);
  }
  return out;
}

/** The strongly connected groups of more than one file (or a file importing itself) in an import graph, sorted. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The import graph of `files` (repository-relative `.ts` paths) given a reader of their text. */
export function importGraph(files: readonly string[], read: (path: string) => string): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((f) => [f, importsOf(f, read(f), (p) => known.has(p))]));
}

