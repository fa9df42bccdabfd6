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
const BIG_STOCK_BASE = 9007199254740993n;
const RELEASE_BASE_MS = Date.UTC(2020, 0, 1);

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
    PriceCents: ((i * 7919) % 99_900) + 100,
    Stock: i % 11 === 0 ? (BIG_STOCK_BASE + BigInt(i)).toString() : String((i * 31) % 1000),
    Rating: ((i * 37) % 50) / 10,
    Active: i % 3 !== 0,
    ReleaseMs: RELEASE_BASE_MS + i * 3_600_000 + (i % 60) * 1000,
    Guid: guidOf(i),
    CategoryID: categoryOf(i),
  };
}

/** Computes Categories row `id` (1..5). */
export function categoryRow(id: number): CategoryRow {
  return { ID: id, Name: CATEGORY_NAMES[id - 1] ?? `Category ${id}` };
}

/** Computes OrderItems row `k` (1..20). */
export function orderItemRow(k: number): OrderItemRow {
  return { OrderID: Math.ceil(k / 4), ItemNo: ITEM_NOS[(k - 1) % 4] ?? 'A', Quantity: ((k * 7) % 17) + 1 };
}

/** A stable, version-4-shaped GUID derived from the index. */
function guidOf(i: number): string {
  const a = (Math.imul(i, 2654435761) >>> 0).toString(16).padStart(8, '0');
  const tail = i.toString(16).padStart(12, '0');
  return `${a}-${(i & 0xffff).toString(16).padStart(4, '0')}-4000-8000-${tail}`;
}
