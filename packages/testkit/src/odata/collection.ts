// Evaluates a collection request's rows (filter, search, orderby) as row indexes, computing nothing
// for the plain case so that a million-row set pages in constant memory.
import { badRequest } from './errors.js';
import { compareForSort } from './filter-eval.js';
import type { OrderItem } from './filter-parser.js';
import type { EntitySetDef, IndexRange, Value } from './model.js';

/** The rows of a collection after filter, search and orderby (before $skip/$top). */
export interface ResultSet {
  readonly total: number;
  /** Row indexes of result positions `offset` … `offset + n - 1` (fewer at the end). */
  slice(offset: number, n: number): number[];
}

/** What selects and orders a collection. */
export interface ResultSpec {
  readonly set: EntitySetDef;
  readonly base: IndexRange;
  readonly filter?: (row: unknown) => boolean;
  readonly orderby?: readonly OrderItem[];
  readonly search?: string;
  /** Set when $orderby is exactly the single key property: the order rows are generated in, or its reverse. */
  readonly keyOrder?: 'asc' | 'desc';
  /** Identifies filter/orderby/search text for caching the evaluated rows across pages. */
  readonly cacheKey?: string;
}

/** Small cache of evaluated results so that paging a filtered or ordered result does not redo the work. */
export class ResultCache {
  private readonly entries = new Map<string, ResultSet>();
  constructor(private readonly limit = 8) {}
  get(key: string, make: () => ResultSet): ResultSet {
    const hit = this.entries.get(key);
    if (hit) return hit;
    const made = make();
    this.entries.set(key, made);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as string);
    return made;
  }
}

/** Evaluates `spec`, using `cache` for anything that needs a scan. */
export function evaluate(spec: ResultSpec, cache?: ResultCache): ResultSet {
  const { base } = spec;
  if (!spec.filter && spec.search === undefined && (!spec.orderby || spec.keyOrder)) {
    // rows are generated in key order, so ordering by the key alone needs no sort
    const desc = spec.keyOrder === 'desc';
    return {
      total: base.count,
      slice: (offset, n) => {
        const out: number[] = [];
        for (let k = offset; k < Math.min(base.count, offset + n); k++) {
          out.push(base.start + (desc ? base.count - 1 - k : k) * base.step);
        }
        return out;
      },
    };
  }
  const make = (): ResultSet => materialize(spec);
  return cache && spec.cacheKey !== undefined
    ? cache.get(`${spec.set.name}|${base.start},${base.step},${base.count}|${spec.cacheKey}`, make)
    : make();
}

function materialize(spec: ResultSpec): ResultSet {
  const { set, base, filter } = spec;
  const match = searchPredicate(set, spec.search);
  let indexes: Int32Array = new Int32Array(base.count);
  let m = 0;
  for (let k = 0; k < base.count; k++) {
    const i = base.start + k * base.step;
    if (!filter && !match) { indexes[m++] = i; continue; }
    const row = set.row(i);
    if ((!filter || filter(row)) && (!match || match(row))) indexes[m++] = i;
  }
  indexes = indexes.slice(0, m);
  if (spec.orderby && spec.orderby.length > 0) indexes = sortIndexes(set, indexes, spec.orderby);
  const sorted = indexes;
  return { total: m, slice: (offset, n) => Array.from(sorted.subarray(offset, offset + n)) };
}

function sortIndexes(set: EntitySetDef, indexes: Int32Array, items: readonly OrderItem[]): Int32Array {
  const env: unknown[] = [];
  const keys: Value[][] = items.map(() => new Array<Value>(indexes.length));
  indexes.forEach((i, pos) => {
    env[0] = set.row(i);
    items.forEach((item, j) => { (keys[j] as Value[])[pos] = item.expr.ev(env); });
  });
  const perm = Int32Array.from({ length: indexes.length }, (_, k) => k);
  perm.sort((a, b) => {
    for (let j = 0; j < items.length; j++) {
      const col = keys[j] as Value[];
      const c = compareForSort(col[a] as Value, col[b] as Value);
      if (c !== 0) return (items[j] as OrderItem).desc ? -c : c;
    }
    return a - b;
  });
  return perm.map((p) => indexes[p] as number);
}

/** `$search`: the term (quotes stripped) as a case-insensitive substring of Name. */
function searchPredicate(set: EntitySetDef, search: string | undefined): ((row: unknown) => boolean) | undefined {
  if (search === undefined) return undefined;
  const name = set.properties.find((p) => p.name === 'Name');
  if (!name) throw badRequest(`$search is not supported on ${set.name}`, '$search');
  const term = search.replace(/^"(.*)"$/s, '$1').toLowerCase();
  return (row) => String(name.get(row)).toLowerCase().includes(term);
}
