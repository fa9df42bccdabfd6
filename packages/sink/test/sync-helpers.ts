// Shared by the sync tests: the testkit's writable Orders, a client, and "the table equals the service".
import { createODataClient, type ODataClient } from '@sluice/odata';
import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll } from 'vitest';
import { openSqlite } from '../src/sync/sqlite.js';

/** An order as the test compares it: what the service has and what a synced table must hold. */
export interface OrderRow {
  ID: number;
  Customer: string;
  Amount: string;
  Quantity: string;
  Status: string;
  DeliveryDate: number | null;
  Attachment: string | null;
}

/** Starts the testkit OData server with its writable Orders for the file's tests. */
export function useOrders(): { server(): ODataTestServer; client(): ODataClient } {
  let srv: ODataTestServer | undefined;
  let od: ODataClient | undefined;
  beforeAll(async () => {
    srv = await startODataServer({ products: 1, writes: true });
    od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { retry: false } });
  });
  afterAll(async () => {
    await od?.close();
    await srv?.close();
  });
  return { server: () => srv!, client: () => od! };
}

/** The service's orders, sorted by ID, in the compared form. */
export async function serviceOrders(od: ODataClient): Promise<OrderRow[]> {
  const orders = await od.from<Record<string, unknown>>('Orders').list();
  return orders.map((o) => ({
    ID: Number(o['ID']),
    Customer: String(o['Customer']),
    Amount: String(o['Amount']),
    Quantity: String(o['Quantity']),
    Status: String(o['Status']),
    DeliveryDate: o['DeliveryDate'] === null ? null : Date.parse(String(o['DeliveryDate'])),
    Attachment: o['Attachment'] === null ? null : Buffer.from(String(o['Attachment']).replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('hex'),
  })).sort((a, b) => a.ID - b.ID);
}

/** The compared columns of a synced Orders table, Int64 as text (a driver would read it as a rounded number). */
export const ORDERS_SQL = 'SELECT ID, Customer, Amount, CAST(Quantity AS TEXT) AS Quantity, Status, DeliveryDate, Attachment FROM Orders';

/** Rows of a synced Orders table (any driver's row objects) in the compared form, sorted by ID. */
export function tableOrders(rows: readonly Record<string, unknown>[]): OrderRow[] {
  return rows.map((r) => ({
    ID: Number(r['ID']),
    Customer: String(r['Customer']),
    Amount: String(r['Amount']),
    Quantity: String(r['Quantity']),
    Status: String(r['Status']),
    DeliveryDate: r['DeliveryDate'] === null ? null : r['DeliveryDate'] instanceof Date ? r['DeliveryDate'].getTime() : Date.parse(String(r['DeliveryDate'])),
    Attachment: r['Attachment'] === null ? null : Buffer.from(r['Attachment'] as Uint8Array).toString('hex'),
  })).sort((a, b) => a.ID - b.ID);
}

/** Creates `n` orders with distinct customers, amounts with cents, Int64 quantities above 2^53 and a delivery date. */
export async function createOrders(od: ODataClient, n: number, tag: string): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const created = await od.from('Orders').create({
      Customer: `${tag}-${i}`, Amount: `${1000 + i}.${String(i % 100).padStart(2, '0')}`, Quantity: String(9007199254740993n + BigInt(i)),
      DeliveryDate: `2024-0${1 + (i % 9)}-15T10:30:00.250+02:00`, Attachment: i % 2 ? new Uint8Array([1, 2, 3]) : null,
    });
    ids.push(Number((created.value as { ID: number }).ID));
  }
  return ids;
}

/** Rows of a query on a SQLite database file, on a connection of its own. */
export function sqliteRows(path: string, sql: string): Record<string, unknown>[] {
  const db = openSqlite(path);
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}
