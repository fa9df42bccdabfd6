// Deterministic rows for the interop tests. Readings: 5,000 rows (seq 1..5000) for paging; the rest small
// enough to assert exactly.
import cds from '@sap/cds';
import { Buffer } from 'node:buffer';

const { INSERT } = cds.ql;

export const READINGS = 5000;
/** An Int64 above 2^53: survives only when numbers are read as strings. */
export const BIG_STOCK = '9007199254740993';

export async function seed() {
  const { Suppliers, Parts, Notes, Bins, Readings, Measures } = cds.entities('interop');
  await INSERT.into(Suppliers).entries([
    { ID: 1, name: "O'Neil Tools", city: 'Berlin', since: '2019-04-01' },
    { ID: 2, name: 'Acme Valves', city: 'Lyon', since: '2020-02-29' },
    { ID: 3, name: 'North Bearings', city: 'Berlin', since: '2021-12-31' },
  ]);
  await INSERT.into(Parts).entries([
    { ID: 1, name: 'Valve', supplier_ID: 2, price: '12.50', stock: '40', releasedAt: '2024-01-15T08:30:00Z' },
    { ID: 2, name: 'Bearing', supplier_ID: 3, price: '3.20', stock: '1200', releasedAt: '2023-06-01T00:00:00Z' },
    { ID: 3, name: 'Spanner 10 mm', supplier_ID: 1, price: '7.95', stock: '75', releasedAt: '2022-11-30T16:45:10Z' },
    { ID: 4, name: 'Spanner 13 mm', supplier_ID: 1, price: '8.95', stock: BIG_STOCK, releasedAt: '2025-03-02T12:00:00Z' },
    { ID: 5, name: 'Gasket', supplier_ID: 2, price: '0.99', stock: '0', releasedAt: '2021-02-28T23:59:59Z' },
  ]);
  await INSERT.into(Notes).entries([
    { ID: '7d0c7f8e-53d5-4d4c-9a1e-0b4e7f1b2c01', text: 'keep dry', part_ID: 1 },
    { ID: '7d0c7f8e-53d5-4d4c-9a1e-0b4e7f1b2c02', text: 'fragile', part_ID: 1 },
    { ID: '7d0c7f8e-53d5-4d4c-9a1e-0b4e7f1b2c03', text: 'sold in pairs', part_ID: 2 },
  ]);
  await INSERT.into(Bins).entries([
    { plant: '1000', number: 1, label: 'A-01', part_ID: 1 },
    { plant: '1000', number: 2, label: 'A-02', part_ID: 2 },
    { plant: '2000', number: 1, label: 'B-01', part_ID: 3 },
  ]);
  const start = Date.UTC(2026, 0, 1);
  const rows = Array.from({ length: READINGS }, (_, i) => ({
    seq: i + 1,
    value: ((i * 7919) % 100000 / 1000).toFixed(3),
    at: new Date(start + i * 60_000).toISOString(),
  }));
  await INSERT.into(Readings).entries(rows);
  // Bytes whose base64 has '+' and '/' (fb ff 3e / fb ef) and needs padding (00 ff), so base64 and base64url differ.
  await INSERT.into(Measures).entries([
    { ID: 1, value: 150, blob: Buffer.from([0xfb, 0xff, 0x3e]) },
    { ID: 2, value: 0.000125, blob: Buffer.from([0x00, 0xff]) },
    { ID: 3, value: -2.5e21, blob: Buffer.from([0xfb, 0xef]) },
    { ID: 4, value: null, blob: null },
  ]);
}
