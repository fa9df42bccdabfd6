// Deterministic rows of the demo data set, each computed from its 1-based index so that a service of
// a million products holds no rows in memory.

/** One Products row as plain values (Int64 `Stock` as a decimal string to keep its precision). */
export interface ProductRow {
  ID: number;
  Name: string;
  Description: string | null;
  /** Price in cents; Edm.Decimal(12,2) is rendered from it without floating point. */
  PriceCents: number;
  /** Decimal digits of the Int64 stock, above 2^53 for every 11th row. */
  Stock: string;
  Rating: number;
  Active: boolean;
  /** ReleaseDate as milliseconds since the epoch (UTC). */
  ReleaseMs: number;
  Guid: string;
  CategoryID: number;
}

/** One Categories row. */
export interface CategoryRow {
  ID: number;
  Name: string;
}

/** One OrderItems row (composite key OrderID + ItemNo). */
export interface OrderItemRow {
  OrderID: number;
  ItemNo: string;
  Quantity: number;
}

/** Names of the five categories, index 0 is category 1. */
export const CATEGORY_NAMES: readonly string[] = ['Beverages', 'Condiments', 'Produce', 'Seafood', 'Dairy'];

/** Number of OrderItems rows (OrderID 1..5 × ItemNo 'A'..'D'). */
export const ORDER_ITEM_COUNT = 20;

const ITEM_NOS = 'ABCD';
/** Stock of every 11th product is this plus its index: above 2^53, so it needs Int64 precision. */
export const BIG_STOCK_BASE = 9007199254740993n;
/** ReleaseDate of product i is this plus i hours and i % 60 seconds. */
export const RELEASE_BASE_MS = Date.UTC(2020, 0, 1);

/** The category a product belongs to: 1..5, round robin. */
export function categoryOf(i: number): number {
  return ((i - 1) % 5) + 1;
}

/** Computes Products row `i` (1-based). */
export function productRow(i: number): ProductRow {
  return {
    ID: i,
    Name: i % 7 === 0 ? `O'Brien ${i}` : `Product ${i}`,
    Description: i % 5 === 0 ? null : i % 3 === 0 ? `Description of "${i}" – ünïcødé` : `Description of product ${i}`,
    PriceCents: priceCentsOf(i),
    Stock: stockOf(i),
    Rating: ((i * 37) % 50) / 10,
    Active: i % 3 !== 0,
    ReleaseMs: releaseMsOf(i),
    Guid: guidOf(i),
    CategoryID: categoryOf(i),
  };
}

/** Price of product i in cents. */
export function priceCentsOf(i: number): number {
  return ((i * 7919) % 99_900) + 100;
}

const SMALL_STOCK = Array.from({ length: 1000 }, (_, n) => String(n));
/** Decimal digits of product i's Int64 stock. */
export function stockOf(i: number): string {
  return i % 11 === 0 ? (BIG_STOCK_BASE + BigInt(i)).toString() : (SMALL_STOCK[(i * 31) % 1000] as string);
}

/** ReleaseDate of product i in ms since the epoch. */
export function releaseMsOf(i: number): number {
  return RELEASE_BASE_MS + i * 3_600_000 + (i % 60) * 1000;
}

/** Computes Categories row `id` (1..5). */
export function categoryRow(id: number): CategoryRow {
  return { ID: id, Name: CATEGORY_NAMES[id - 1] ?? `Category ${id}` };
}

/** Computes OrderItems row `k` (1..20). */
export function orderItemRow(k: number): OrderItemRow {
  return { OrderID: Math.ceil(k / 4), ItemNo: ITEM_NOS[(k - 1) % 4] ?? 'A', Quantity: ((k * 7) % 17) + 1 };
}

const HEX2 = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const hex4 = (x: number): string => (HEX2[(x >>> 8) & 0xff] as string) + (HEX2[x & 0xff] as string);
const hex8 = (x: number): string => hex4(x >>> 16) + hex4(x & 0xffff);

/** A stable, version-4-shaped GUID derived from the index (table lookups: this is on the hot path). */
export function guidOf(i: number): string {
  const tail = i < 0x1_0000_0000 ? `0000${hex8(i)}` : i.toString(16).padStart(12, '0');
  return `${hex8(Math.imul(i, 2654435761) >>> 0)}-${hex4(i & 0xffff)}-4000-8000-${tail}`;
}
