// The demo service's entity model (namespace Demo, container DemoService): entity sets, their
// properties with EDM types and per-version JSON writers, navigation, and key lookup.
import { CATEGORY_NAMES, ORDER_ITEM_COUNT, categoryRow, orderItemRow, productRow } from './data.js';
import type { CategoryRow, OrderItemRow, ProductRow } from './data.js';

/** Protocol version of a request: the v4 or the v2 (SAP gateway style) service. */
export type ODataVersion = 2 | 4;

/** EDM primitive types the model uses (v2 renders Edm.DateTimeOffset properties as Edm.DateTime). */
export type EdmType =
  | 'Edm.Int32' | 'Edm.Int64' | 'Edm.String' | 'Edm.Decimal' | 'Edm.Double' | 'Edm.Boolean'
  | 'Edm.DateTimeOffset' | 'Edm.Guid';

/** A date-time value in filter evaluation, kept apart from numbers so comparisons stay typed. */
export class DateValue {
  constructor(readonly ms: number) {}
}

/** A value as the filter evaluator sees it (Int64 beyond 2^53 as bigint, GUIDs as lower-case strings). */
export type Value = null | boolean | number | bigint | string | DateValue;

/** A structural property of an entity type. */
export interface PropertyDef {
  readonly name: string;
  readonly type: EdmType;
  readonly nullable: boolean;
  readonly precision?: number;
  readonly scale?: number;
  /** The value for filtering and ordering. */
  get(row: unknown): Value;
  /** JSON text of the value in a v4 payload; Int64/Decimal quoted when IEEE754Compatible. */
  v4(row: unknown, ieee: boolean): string;
  /** JSON text of the value in a v2 verbose JSON payload. */
  v2(row: unknown): string;
}

/** A navigation property: to one row of another set, or to a range of another set's rows. */
export interface NavDef {
  readonly name: string;
  readonly target: string;
  readonly many: boolean;
  /** Partner navigation property on the target, for CSDL. */
  readonly partner: string;
  /** The referential constraint (dependent property → principal key), for CSDL. */
  readonly constraint?: { property: string; referenced: string };
  /** Rows of the target reached from `row`. */
  resolve(row: unknown, sizes: SetSizes): IndexRange;
  /** The target set itself when it is not one of ENTITY_SETS (the writable sets' `Lines`, in `$filter`). */
  readonly targetSet?: EntitySetDef;
}

/** An arithmetic run of row indexes: `start`, `start + step`, … (`count` of them). */
export interface IndexRange {
  readonly start: number;
  readonly step: number;
  readonly count: number;
}

/** Row counts per entity set of one server. */
export interface SetSizes {
  readonly products: number;
}

/** An entity set and its entity type. */
export interface EntitySetDef {
  readonly name: string;
  /** Unqualified entity type name, e.g. `Product`. */
  readonly typeName: string;
  readonly keys: readonly string[];
  readonly properties: readonly PropertyDef[];
  readonly navs: readonly NavDef[];
  /** Number of rows. */
  size(sizes: SetSizes): number;
  /** Row `i` (1-based). */
  row(i: number): unknown;
  /** The row index with these key values, or undefined when no row has them. */
  find(key: Record<string, Value>, sizes: SetSizes): number | undefined;
}

const q = (s: string): string => `"${s}"`;
// eslint-disable-next-line no-control-regex -- JSON must escape control characters (RFC 8259 section 7)
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/;
/** JSON text of a string; skips JSON.stringify for the common string that needs no escaping. */
const str = (s: string | null): string => (s === null ? 'null' : NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);

// number-to-text is the hot cost of serializing; Rating and small Stock values come from short tables
const RATING_TEXT = Array.from({ length: 50 }, (_, n) => String(n / 10));
const ratingText = (r: number): string => RATING_TEXT[Math.round(r * 10)] ?? String(r);

const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, '0'));
let cachedDay = Number.NaN;
let cachedDayText = '';

/** ISO 8601 UTC without a zero millisecond part, e.g. `2020-01-01T01:00:01Z` (date part cached: hot path). */
export function isoOf(ms: number): string {
  const day = Math.floor(ms / 86_400_000);
  let sec = (ms - day * 86_400_000) / 1000;
  if (!Number.isInteger(sec)) {
    const iso = new Date(ms).toISOString();
    return iso.endsWith('.000Z') ? `${iso.slice(0, -5)}Z` : iso;
  }
  if (day !== cachedDay) {
    cachedDay = day;
    cachedDayText = new Date(day * 86_400_000).toISOString().slice(0, 11);
  }
  const h = Math.floor(sec / 3600);
  sec -= h * 3600;
  const m = Math.floor(sec / 60);
  return `${cachedDayText}${TWO[h] as string}:${TWO[m] as string}:${TWO[sec - m * 60] as string}Z`;
}

/** Decimal text of an amount in cents, e.g. 1234 → `12.34`. */
export function centsText(cents: number): string {
  const r = cents % 100;
  return `${Math.trunc(cents / 100)}.${r < 10 ? '0' : ''}${r}`;
}

function int64Value(digits: string): number | bigint {
  const n = Number(digits);
  return Number.isSafeInteger(n) ? n : BigInt(digits);
}

function prop<R>(
  name: string, type: EdmType, nullable: boolean, get: (r: R) => Value,
  v4: (r: R, ieee: boolean) => string, v2: (r: R) => string, extra: { precision?: number; scale?: number } = {},
): PropertyDef {
  return { name, type, nullable, ...extra, get: get as PropertyDef['get'], v4: v4 as PropertyDef['v4'], v2: v2 as PropertyDef['v2'] };
}

const products: EntitySetDef = {
  name: 'Products',
  typeName: 'Product',
  keys: ['ID'],
  properties: [
    prop<ProductRow>('ID', 'Edm.Int32', false, (r) => r.ID, (r) => String(r.ID), (r) => String(r.ID)),
    prop<ProductRow>('Name', 'Edm.String', false, (r) => r.Name, (r) => str(r.Name), (r) => str(r.Name)),
    prop<ProductRow>('Description', 'Edm.String', true, (r) => r.Description, (r) => str(r.Description), (r) => str(r.Description)),
    prop<ProductRow>('Price', 'Edm.Decimal', false, (r) => r.PriceCents / 100,
      (r, ieee) => (ieee ? q(centsText(r.PriceCents)) : centsText(r.PriceCents)), (r) => q(centsText(r.PriceCents)),
      { precision: 12, scale: 2 }),
    prop<ProductRow>('Stock', 'Edm.Int64', false, (r) => int64Value(r.Stock), (r, ieee) => (ieee ? q(r.Stock) : r.Stock), (r) => q(r.Stock)),
    prop<ProductRow>('Rating', 'Edm.Double', false, (r) => r.Rating, (r) => ratingText(r.Rating), (r) => q(ratingText(r.Rating))),
    prop<ProductRow>('Active', 'Edm.Boolean', false, (r) => r.Active, (r) => String(r.Active), (r) => String(r.Active)),
    prop<ProductRow>('ReleaseDate', 'Edm.DateTimeOffset', false, (r) => new DateValue(r.ReleaseMs),
      (r) => q(isoOf(r.ReleaseMs)), (r) => `"\\/Date(${r.ReleaseMs})\\/"`),
    prop<ProductRow>('Guid', 'Edm.Guid', false, (r) => r.Guid, (r) => q(r.Guid), (r) => q(r.Guid)),
    prop<ProductRow>('CategoryID', 'Edm.Int32', false, (r) => r.CategoryID, (r) => String(r.CategoryID), (r) => String(r.CategoryID)),
  ],
  navs: [{
    name: 'Category', target: 'Categories', many: false, partner: 'Products',
    constraint: { property: 'CategoryID', referenced: 'ID' },
    resolve: (row) => ({ start: (row as ProductRow).CategoryID, step: 1, count: 1 }),
  }],
  size: (s) => s.products,
  row: productRow,
  find: (key, s) => {
    const id = key.ID;
    return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= s.products ? id : undefined;
  },
};

const categories: EntitySetDef = {
  name: 'Categories',
  typeName: 'Category',
  keys: ['ID'],
  properties: [
    prop<CategoryRow>('ID', 'Edm.Int32', false, (r) => r.ID, (r) => String(r.ID), (r) => String(r.ID)),
    prop<CategoryRow>('Name', 'Edm.String', false, (r) => r.Name, (r) => str(r.Name), (r) => str(r.Name)),
  ],
  navs: [{
    name: 'Products', target: 'Products', many: true, partner: 'Category',
    resolve: (row, s) => {
      const c = (row as CategoryRow).ID;
      return { start: c, step: 5, count: c <= s.products ? Math.floor((s.products - c) / 5) + 1 : 0 };
    },
  }],
  size: () => CATEGORY_NAMES.length,
  row: categoryRow,
  find: (key) => {
    const id = key.ID;
    return typeof id === 'number' && Number.isInteger(id) && id >= 1 && id <= CATEGORY_NAMES.length ? id : undefined;
  },
};

const orderItems: EntitySetDef = {
  name: 'OrderItems',
  typeName: 'OrderItem',
  keys: ['OrderID', 'ItemNo'],
  properties: [
    prop<OrderItemRow>('OrderID', 'Edm.Int32', false, (r) => r.OrderID, (r) => String(r.OrderID), (r) => String(r.OrderID)),
    prop<OrderItemRow>('ItemNo', 'Edm.String', false, (r) => r.ItemNo, (r) => str(r.ItemNo), (r) => str(r.ItemNo)),
    prop<OrderItemRow>('Quantity', 'Edm.Int32', false, (r) => r.Quantity, (r) => String(r.Quantity), (r) => String(r.Quantity)),
  ],
  navs: [],
  size: () => ORDER_ITEM_COUNT,
  row: orderItemRow,
  find: (key) => {
    const { OrderID: order, ItemNo: item } = key;
    if (typeof order !== 'number' || typeof item !== 'string' || item.length !== 1) return undefined;
    const slot = 'ABCD'.indexOf(item);
    if (!Number.isInteger(order) || order < 1 || order > 5 || slot < 0) return undefined;
    return (order - 1) * 4 + slot + 1;
  },
};

/** The entity sets of the demo service by name. */
export const ENTITY_SETS: ReadonlyMap<string, EntitySetDef> = new Map(
  [products, categories, orderItems].map((set) => [set.name, set]),
);

/** The entity set named `name`; throws on a name the model does not hold. */
export function entitySet(name: string): EntitySetDef {
  const set = ENTITY_SETS.get(name);
  if (!set) throw new Error(`no entity set ${name}`);
  return set;
}

/** Namespace of the demo schema. */
export const NAMESPACE = 'Demo';
/** Entity container name of the demo schema. */
export const CONTAINER = 'DemoService';

