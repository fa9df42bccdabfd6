// Query options on the writable sets (Orders, OrderLines, Orders(n)/Lines): $filter, $orderby, $skip,
// $top, $skiptoken and $count (also the /$count segment), evaluated by the same expression parser and
// evaluator as the generated sets, over an entity set view of the rows held in the store (Orders with a
// Lines navigation property over a view of their lines, for any/all).
import { evaluate } from '../collection.js';
import { compileFilter, compileOrderBy } from '../filter-parser.js';
import { DateValue, type EdmType, type EntitySetDef, type IndexRange, type NavDef, type PropertyDef, type Value } from '../model.js';
import { parseQuery, type QueryOptions } from '../query-options.js';
import type { Exchange } from './exchange.js';
import { LINE_FIELDS, ORDER_FIELDS, writeValue, type FieldDef, type OrderRecord, type OrderStore, type Stored } from './orders.js';

/** The rows of one request after its query options, and the count of all matching rows when asked for. */
export interface QueriedRows<T> {
  readonly rows: T[];
  /** Rows matching $filter and $search, before $skip and $top (what `$count` reports). */
  readonly total: number;
  /** `total` when the request asked for `$count=true` (v4) or `$inlinecount=allpages` (v2). */
  readonly count: number | undefined;
  readonly options: QueryOptions;
}

/** The filter value of a stored property (Int64 beyond 2^53 as bigint, dates as DateValue). */
function filterValue(f: FieldDef, value: string | number | null | undefined): Value {
  if (value === null || value === undefined) return null;
  switch (f.type) {
    case 'Edm.Decimal': return Number(value);
    case 'Edm.Int64': {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : BigInt(value);
    }
    case 'Edm.DateTimeOffset': return new DateValue(value as number);
    default: return value;
  }
}

function property<T>(f: FieldDef, values: (row: T) => Stored): PropertyDef | undefined {
  // Edm.Binary has no comparison in the expression evaluator: such a property is not filterable here.
  if (f.type === 'Edm.Binary') return undefined;
  const type: EdmType = f.type;
  return {
    name: f.name, type, nullable: f.nullable,
    ...(f.precision !== undefined ? { precision: f.precision } : {}),
    ...(f.scale !== undefined ? { scale: f.scale } : {}),
    get: (row) => filterValue(f, values(row as T)[f.name]),
    v4: (row, ieee) => writeValue(f, values(row as T)[f.name] ?? null, { version: 4, ieee }),
    v2: (row) => writeValue(f, values(row as T)[f.name] ?? null, { version: 2, ieee: false }),
  };
}

/** An entity set over `rows` (in key order) for the expression compiler and `evaluate`. */
function setOver<T>(name: string, typeName: string, fields: readonly FieldDef[], rows: readonly T[], values: (row: T) => Stored, navs: NavDef[] = []): EntitySetDef {
  return {
    name, typeName, keys: ['ID'],
    properties: fields.map((f) => property(f, values)).filter((p): p is PropertyDef => p !== undefined),
    navs,
    size: () => rows.length,
    row: (i) => rows[i - 1],
    find: () => undefined,
  };
}

/**
 * `Lines` of `orders` as a navigation property for `$filter`'s `any`/`all`: one set of their lines, each
 * order's in a run (in key order), and each order resolving to its run.
 */
function linesNav<T>(orders: readonly T[], linesOf: (order: T) => Stored[]): NavDef {
  const all: Stored[] = [];
  const runs = new Map<T, IndexRange>();
  for (const order of orders) {
    const own = linesOf(order).sort((a, b) => Number(a['ID']) - Number(b['ID']));
    runs.set(order, { start: all.length + 1, step: 1, count: own.length });
    all.push(...own);
  }
  const NONE: IndexRange = { start: 1, step: 1, count: 0 };
  return {
    name: 'Lines', target: LINE_SET.name, many: true, partner: 'Order',
    resolve: (row) => runs.get(row as T) ?? NONE,
    targetSet: setOver(LINE_SET.name, LINE_SET.typeName, LINE_FIELDS, all, LINE_SET.values),
  };
}

/** What is being queried: the set's name and entity type, its fields, and how to reach a row's values. */
export interface WritableSet<T> {
  readonly name: string;
  readonly typeName: string;
  readonly fields: readonly FieldDef[];
  values(row: T): Stored;
  /** The lines of a row, for `any`/`all` over `Lines` in `$filter` (Orders only). */
  lines?(row: T): Stored[];
}

/**
 * Applies the request's query options to `rows` (any order: they are taken in key order, as the
 * generated sets are); unknown or malformed options and properties are refused with 400.
 */
export function queryRows<T>(x: Exchange, set: WritableSet<T>, rows: Iterable<T>): QueriedRows<T> {
  const options = parseQuery(x.search, x.version);
  const sorted = [...rows].sort((a, b) => Number(set.values(a)['ID']) - Number(set.values(b)['ID']));
  const navs = set.lines === undefined ? [] : [linesNav(sorted, set.lines.bind(set))];
  const def = setOver(set.name, set.typeName, set.fields, sorted, set.values, navs);
  const ctx = { set: def, version: x.version, sizes: { products: 0 } };
  const result = evaluate({
    set: def,
    base: { start: 1, step: 1, count: sorted.length },
    ...(options.filter !== undefined ? { filter: compileFilter(options.filter, ctx) } : {}),
    ...(options.orderby !== undefined ? { orderby: compileOrderBy(options.orderby, ctx) } : {}),
    ...(options.search !== undefined ? { search: options.search } : {}),
  });
  // as on the generated sets: $skip and $top cut the result, $skiptoken counts rows of it already sent
  const skip = options.skip ?? 0;
  const offset = options.skiptoken ?? 0;
  const available = Math.max(0, Math.min(result.total - skip, options.top ?? Infinity));
  const picked = result.slice(skip + offset, Math.max(0, available - offset)).map((i) => sorted[i - 1] as T);
  return { rows: picked, total: result.total, count: options.count ? result.total : undefined, options };
}

/** The orders of `store` as a queryable set (with their lines, for `any`/`all` over `Lines`). */
export function orderSet(store: OrderStore): WritableSet<OrderRecord> {
  return { name: 'Orders', typeName: 'Order', fields: ORDER_FIELDS, values: (o) => o.values, lines: (o) => o.lines.map((id) => store.lines.get(id)!) };
}
/** OrderLines as a queryable set. */
export const LINE_SET: WritableSet<Stored> = { name: 'OrderLines', typeName: 'OrderLine', fields: LINE_FIELDS, values: (l) => l };
