import type { CgModel } from './model.js';
import type { Selection } from './select.js';
import { keyOf } from './validate.js';

/** What a generated file's types are made of, embedded at its end so that `--check` can name what changed. */
export interface Summary {
  /** Entity sets and singletons: name to qualified entity type. */
  sets: Record<string, string>;
  /** Entity and complex types: key, properties (`Edm.String`, `!` when not nullable), navigation (`NS.T`, `[]` when many). */
  types: Record<string, { base?: string; key: string[]; props: Record<string, string>; nav: Record<string, string> }>;
  /** Enum types: their members. */
  enums: Record<string, string[]>;
  /** Operation imports: name to kind and parameters. */
  operations: Record<string, string>;
  /** Entity sets and singletons that refuse writes: name to `create,update,delete` (those refused); absent when none does. */
  refuses?: Record<string, string> | undefined;
}

const MARK = '/* sluice-codegen-summary';

export function summarize(model: CgModel, sel: Selection): Summary {
  const s: Summary = { sets: {}, types: {}, enums: {}, operations: {} };
  const refuses: Record<string, string> = {};
  for (const set of [...model.entitySets, ...model.singletons]) {
    if (!sel.sets.has(set.name)) continue;
    s.sets[set.name] = set.type;
    if (set.refuses.length > 0) refuses[set.name] = set.refuses.join(',');
  }
  for (const t of model.types.values()) {
    if (!sel.types.has(t.qname)) continue;
    if (t.kind === 'enum') s.enums[t.qname] = t.members.map((m) => m.name);
    if (t.kind !== 'entity' && t.kind !== 'complex') continue;
    const props: Record<string, string> = {};
    for (const p of t.properties) props[p.name] = `${p.type}${p.nullable ? '' : '!'}`;
    const nav: Record<string, string> = {};
    for (const n of t.navigation) nav[n.name] = `${n.type}${n.many ? '[]' : ''}`;
    // Own members only (inherited ones are the base type's entries).
    s.types[t.qname] = { ...(t.baseType === undefined ? {} : { base: t.baseType }), key: keyOf(model, t), props, nav };
  }
  for (const i of model.imports) {
    if (!sel.sets.has(i.name)) continue;
    const params = i.operation === undefined ? i.params : model.operations.get(i.operation)?.find((o) => !o.bound)?.params ?? [];
    s.operations[i.name] = `${i.kind}(${params.map((p) => `${p.name}: ${p.type}`).join(', ')})`;
  }
  // Only when a set refuses something, so that the summary (and fingerprint) of other services stays as it was.
  if (Object.keys(refuses).length > 0) s.refuses = refuses;
  return s;
}

/** The summary as the comment that ends a generated file (`/` escaped, so no `*\/` can end it early). */
export function summaryComment(s: Summary): string {
  return `${MARK}\n${JSON.stringify(s).replace(/\//g, '\\/')}\n*/\n`;
}

/** The summary embedded in a generated file, or undefined when it has none. */
export function readSummary(source: string): Summary | undefined {
  const at = source.lastIndexOf(MARK);
  if (at < 0) return undefined;
  const end = source.indexOf('\n*/', at);
  try {
    return JSON.parse(source.slice(at + MARK.length, end < 0 ? undefined : end)) as Summary;
  } catch {
    return undefined;
  }
}

/** What changed from `before` (the generated file) to `after` (the service now), one line each. */
export function diffSummaries(before: Summary, after: Summary): string[] {
  const out: string[] = [];
  const keys = (a: object, b: object): string[] => [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  const shown = (v: string): string => (v.endsWith('!') ? `${v.slice(0, -1)} (not nullable)` : v);
  /** Entries of two maps: `name` is how an entry is named (`entity set X`, `property T/P`). */
  const compare = (name: (k: string) => string, a: Record<string, string>, b: Record<string, string>, show: (v: string) => string = (v) => v): void => {
    for (const k of keys(a, b)) {
      if (a[k] === undefined) out.push(`${name(k)} added (${show(b[k]!)})`);
      else if (b[k] === undefined) out.push(`${name(k)} removed`);
      else if (a[k] !== b[k]) out.push(`${name(k)}: ${show(a[k])} -> ${show(b[k])}`);
    }
  };
  compare((k) => `entity set ${k}`, before.sets, after.sets);
  for (const t of keys(before.types, after.types)) {
    const a = before.types[t];
    const b = after.types[t];
    if (a === undefined) { out.push(`type ${t} added`); continue; }
    if (b === undefined) { out.push(`type ${t} removed`); continue; }
    if (a.base !== b.base) out.push(`base type of ${t}: ${a.base ?? '(none)'} -> ${b.base ?? '(none)'}`);
    if (a.key.join(',') !== b.key.join(',')) out.push(`key of ${t}: (${a.key.join(', ')}) -> (${b.key.join(', ')})`);
    compare((k) => `property ${t}/${k}`, a.props, b.props, shown);
    compare((k) => `navigation ${t}/${k}`, a.nav, b.nav);
  }
  for (const e of keys(before.enums, after.enums)) {
    const a = before.enums[e]?.join(', ');
    const b = after.enums[e]?.join(', ');
    if (a !== b) out.push(a === undefined ? `enum ${e} added` : b === undefined ? `enum ${e} removed` : `enum ${e}: ${a} -> ${b}`);
  }
  compare((k) => `operation ${k}`, before.operations, after.operations);
  compare((k) => `writes refused by ${k}`, before.refuses ?? {}, after.refuses ?? {});
  return out;
}
