// Files of ParquetRecordWriter read by DuckDB (@duckdb/node-api: a second, independent reader in C++):
// the types it infers from the schema, every value to the last digit, and the chunk statistics it sees.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParquetRecordWriter, type ParquetCodec } from '../src/index.js';
import { col, COLUMNS } from './parquet-fixture.js';


const ROWS = 3000;

/** Row i: every seventh value null; values the service could send, on the writer's fast and exact paths. */
function row(i: number): Record<string, unknown> {
  if (i % 7 === 6) return { ID: i };
  return {
    ID: i,
    Big: i % 2 === 0 ? String(9223372036854775807n - BigInt(i)) : -i * 1_000_003,
    Price: i % 3 === 0 ? `-${i}.${String(i % 100).padStart(2, '0')}` : `${i}5E-1`,
    Small: `${i % 100000}.${i % 1000}`,
    Wide: `${i % 2 ? '-' : ''}99999999999999999999999999.${String(i % 10000).padStart(4, '0')}`,
    Loose: `${i}.000000000000000000001`,
    At: i % 2 === 0 ? `2024-03-01T10:00:${String(i % 60).padStart(2, '0')}Z` : `2024-03-01T10:00:00.123456+02:00`,
    AtMs: `1999-12-31T23:59:59.${String(i % 1000).padStart(3, '0')}-05:30`,
    AtNs: `2024-03-01T00:00:00.${String(i).padStart(7, '0')}Z`,
    Day: `20${String(i % 100).padStart(2, '0')}-02-28`,
    Clock: `13:20:${String(i % 60).padStart(2, '0')}.5`,
    Uid: `${String(i).padStart(8, '0')}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`,
    Name: i % 5 === 0 ? `Zoë "${i}" – ✓` : `Product ${i}`,
    Blob: Buffer.from([i & 0xff, 0, 255]).toString('base64'),
    Rate: i / 4,
    Ratio: i % 2 ? 0.5 : -1.25,
    Flag: i % 3 === 0,
    Tiny: i % 256,
    Short: -(i % 32768),
    Address: { City: `Köln ${i}`, Zip: null },
  };
}

const FLOAT_COLUMNS = [
  col('ID', 'Edm.Int32', 'int', { bits: 32, signed: true, nullable: false, key: true }),
  col('Rate', 'Edm.Double', 'double'),
  col('Ratio', 'Edm.Single', 'single'),
  col('Range', 'Demo.Range', 'json'),
];
/** Three row groups of four: infinities and NaN, finite values and NaN, NaN only (strings as a client without the model hands them out). */
const FLOAT_ROWS = [
  { ID: 1, Rate: Infinity, Ratio: -Infinity, Range: { Low: -Infinity, High: 1 } },
  { ID: 2, Rate: NaN, Ratio: NaN, Range: { Low: NaN, High: Infinity } },
  { ID: 3, Rate: -Infinity, Ratio: 0.5, Range: null },
  { ID: 4, Rate: 1.5, Ratio: 'INF', Range: { Low: 2, High: 3 } },
  { ID: 5, Rate: NaN, Ratio: NaN, Range: null },
  { ID: 6, Rate: 2, Ratio: 0.25, Range: null },
  { ID: 7, Rate: 'NaN', Ratio: 'NaN', Range: null },
  { ID: 8, Rate: 0.5, Ratio: -0.75, Range: null },
  ...[9, 10, 11, 12].map((ID) => ({ ID, Rate: NaN, Ratio: ID % 2 ? 'NaN' : NaN, Range: null })),
];

let dir: string;
let db: DuckDBInstance;
let con: DuckDBConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-duckdb-'));
  db = await DuckDBInstance.create(':memory:');
  con = await db.connect();
});
afterAll(async () => {
  con.closeSync();
  db.closeSync();
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, codec: ParquetCodec): Promise<string> {
  const parts: Uint8Array[] = [];
  const writer = await ParquetRecordWriter.open({ columns: COLUMNS, output: async (b) => { parts.push(b.slice()); }, codec, rowGroupSize: 1000 });
  for (let i = 0; i < ROWS; i++) await writer.add(row(i));
  await writer.close();
  const path = join(dir, name);
  await writeFile(path, Buffer.concat(parts));
  return path;
}

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  return (await con.runAndReadAll(sql)).getRowObjects() as Record<string, unknown>[];
}

describe('Parquet read back by DuckDB', () => {
  it('types every column as $metadata says', async () => {
    const path = await file('types.parquet', 'SNAPPY');
    const types = Object.fromEntries((await rows(`DESCRIBE SELECT * FROM read_parquet('${path}')`)).map((r) => [r['column_name'], r['column_type']]));
    expect(types).toEqual({
      ID: 'INTEGER', Big: 'BIGINT', Price: 'DECIMAL(12,2)', Small: 'DECIMAL(9,3)', Wide: 'DECIMAL(30,4)', Loose: 'VARCHAR',
      At: 'TIMESTAMP WITH TIME ZONE', AtMs: 'TIMESTAMP WITH TIME ZONE', AtNs: 'TIMESTAMP WITH TIME ZONE', Day: 'DATE', Clock: 'TIME',
      Uid: 'UUID', Name: 'VARCHAR', Blob: 'BLOB', Rate: 'DOUBLE', Ratio: 'FLOAT', Flag: 'BOOLEAN', Tiny: 'UTINYINT', Short: 'SMALLINT', Address: 'JSON',
    });
  });

  // ZSTD where this Node writes it (>= 22.15): DuckDB's own Zstandard decoder reads it.
  const zstd = typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';
  for (const codec of ['SNAPPY', 'GZIP', 'UNCOMPRESSED', ...(zstd ? ['ZSTD' as const] : [])] as const) {
    it(`reads every value exactly (${codec})`, async () => {
      const path = await file(`values-${codec}.parquet`, codec);
      const back = await rows(`SELECT ID, Big::VARCHAR AS Big, Price::VARCHAR AS Price, Small::VARCHAR AS Small, Wide::VARCHAR AS Wide, Loose,
        epoch_us("At")::VARCHAR AS "At", epoch_ms("AtMs")::VARCHAR AS "AtMs", epoch_us("AtNs")::VARCHAR AS "AtNs", Day::VARCHAR AS Day, Clock::VARCHAR AS Clock,
        Uid::VARCHAR AS Uid, Name, hex(Blob) AS Blob, Rate, Ratio, Flag, Tiny, Short, Address::VARCHAR AS Address
        FROM read_parquet('${path}') ORDER BY ID`);
      expect(back.length).toBe(ROWS);
      for (let i = 0; i < ROWS; i++) {
        const r = back[i]!;
        if (i % 7 === 6) {
          expect(Object.entries(r).filter(([k, v]) => k !== 'ID' && v !== null)).toEqual([]);
          continue;
        }
        const at = i % 2 === 0 ? BigInt(Date.UTC(2024, 2, 1, 10, 0, i % 60)) * 1000n : BigInt(Date.UTC(2024, 2, 1, 8)) * 1000n + 123_456n;
        expect(r, `row ${i}`).toEqual({
          ID: i,
          Big: String(i % 2 === 0 ? 9223372036854775807n - BigInt(i) : -i * 1_000_003),
          Price: i === 0 ? '0.00' : i % 3 === 0 ? `-${i}.${String(i % 100).padStart(2, '0')}` : `${i}.50`,
          Small: `${i % 100000}.${String(i % 1000).padEnd(3, '0')}`,
          Wide: `${i % 2 ? '-' : ''}99999999999999999999999999.${String(i % 10000).padStart(4, '0')}`,
          Loose: `${i}.000000000000000000001`,
          At: String(at),
          AtMs: String(Date.UTC(2000, 0, 1, 5, 29, 59, i % 1000)),
          AtNs: String((BigInt(Date.UTC(2024, 2, 1)) * 1_000_000n + BigInt(i) * 100n) / 1000n), // DuckDB keeps microseconds
          Day: `20${String(i % 100).padStart(2, '0')}-02-28`,
          Clock: `13:20:${String(i % 60).padStart(2, '0')}.5`,
          Uid: `${String(i).padStart(8, '0')}-1c2d-4e5f-8a9b-0c1d2e3f4a5b`,
          Name: i % 5 === 0 ? `Zoë "${i}" – ✓` : `Product ${i}`,
          Blob: `${(i & 0xff).toString(16).padStart(2, '0').toUpperCase()}00FF`,
          Rate: i / 4,
          Ratio: i % 2 ? 0.5 : -1.25,
          Flag: i % 3 === 0,
          Tiny: i % 256,
          Short: -(i % 32768) || 0,
          Address: JSON.stringify({ City: `Köln ${i}`, Zip: null }),
        });
      }
    });
  }

  it('sees each row group\'s statistics (min, max, nulls) and prunes by them', async () => {
    const path = await file('stats.parquet', 'SNAPPY');
    const meta = await rows(`SELECT row_group_id, path_in_schema, stats_min_value, stats_max_value, stats_null_count
      FROM parquet_metadata('${path}') WHERE path_in_schema IN ('ID', 'Big', 'Name') ORDER BY row_group_id, path_in_schema`);
    const of = (group: number, name: string): Record<string, unknown> => meta.find((m) => m['row_group_id'] === BigInt(group) && m['path_in_schema'] === name)!;
    expect(of(1, 'ID')).toMatchObject({ stats_min_value: '1000', stats_max_value: '1999', stats_null_count: 0n });
    const nulls = Array.from({ length: 1000 }, (_, k) => 1000 + k).filter((i) => i % 7 === 6).length;
    const bigs = Array.from({ length: 1000 }, (_, k) => 1000 + k).filter((i) => i % 7 !== 6).map((i) => (i % 2 === 0 ? 9223372036854775807n - BigInt(i) : BigInt(-i * 1_000_003)));
    expect(of(1, 'Big')).toMatchObject({
      stats_min_value: String(bigs.reduce((a, b) => (b < a ? b : a))), stats_max_value: String(bigs.reduce((a, b) => (b > a ? b : a))), stats_null_count: BigInt(nulls),
    });
    expect(of(2, 'Name')).toMatchObject({ stats_min_value: 'Product 2002', stats_null_count: BigInt(Array.from({ length: 1000 }, (_, k) => 2000 + k).filter((i) => i % 7 === 6).length) });
    const count = await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${path}') WHERE Big > 9223372036854775000`);
    expect(count[0]!['n']).toBe(Array.from({ length: ROWS }, (_, i) => i).filter((i) => i % 7 !== 6 && i % 2 === 0 && 9223372036854775807n - BigInt(i) > 9223372036854775000n).length);
  });
});

// Infinity, -Infinity and NaN (as the client decodes "INF", "-INF", "NaN"): DOUBLE and FLOAT keep them, no statistic
// min or max is NaN (a row group of NaNs only has none; infinities are bounds), JSON columns hold them as "INF"/"NaN".
describe('Parquet: Infinity, -Infinity and NaN Doubles read back by DuckDB', () => {
  it('DOUBLE and FLOAT keep them; statistics bound the other values and are absent for a NaN-only group; JSON columns say "INF"/"NaN"', async () => {
    const parts: Uint8Array[] = [];
    const writer = await ParquetRecordWriter.open({ columns: FLOAT_COLUMNS, output: async (b) => { parts.push(b.slice()); }, codec: 'SNAPPY', rowGroupSize: 4 });
    for (const row of FLOAT_ROWS) await writer.add(row);
    await writer.close();
    const path = join(dir, 'floats.parquet');
    const file = Buffer.concat(parts);
    await writeFile(path, file);

    const back = await rows(`SELECT ID, Rate, Ratio, Range::VARCHAR AS Range FROM read_parquet('${path}') ORDER BY ID`);
    expect(back.slice(0, 4)).toEqual([
      { ID: 1, Rate: Infinity, Ratio: -Infinity, Range: '{"Low":"-INF","High":1}' },
      { ID: 2, Rate: NaN, Ratio: NaN, Range: '{"Low":"NaN","High":"INF"}' },
      { ID: 3, Rate: -Infinity, Ratio: 0.5, Range: null },
      { ID: 4, Rate: 1.5, Ratio: Infinity, Range: '{"Low":2,"High":3}' },
    ]);
    expect(back.slice(4).map((r) => [r['ID'], r['Rate'], r['Ratio']])).toEqual([[5, NaN, NaN], [6, 2, 0.25], [7, NaN, NaN], [8, 0.5, -0.75], ...[9, 10, 11, 12].map((ID) => [ID, NaN, NaN])]);

    // The footer's statistics as written (hyparquet reads them as they are): infinities bound, NaN never does.
    const md = parquetMetadata(file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer);
    const bounds = md.row_groups.map((g) => g.columns.slice(1, 3).map((c) => [c.meta_data!.statistics?.min_value, c.meta_data!.statistics?.max_value]));
    expect(bounds).toEqual([
      [[-Infinity, Infinity], [-Infinity, Infinity]],
      [[0.5, 2], [-0.75, 0.25]],
      [[undefined, undefined], [undefined, undefined]],
    ]);
    // DuckDB sees the finite bounds (it reports none for infinite ones) and none for the NaN-only group.
    const stats = await rows(`SELECT row_group_id::INTEGER AS g, stats_min_value AS min, stats_max_value AS max
      FROM parquet_metadata('${path}') WHERE path_in_schema = 'Rate' ORDER BY g`);
    expect(stats.slice(1)).toEqual([{ g: 1, min: '0.5', max: '2.0' }, { g: 2, min: null, max: null }]);
    // DuckDB filters by those statistics: no row is lost to a bound.
    expect(await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${path}') WHERE isinf(Rate)`)).toEqual([{ n: 2 }]);
    expect(await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${path}') WHERE isnan(Rate)`)).toEqual([{ n: 7 }]);
    expect(await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet('${path}') WHERE Rate BETWEEN 0 AND 3`)).toEqual([{ n: 3 }]);
  });
});
