// ParquetRecordWriter on its own: several row groups with nulls, every value on its fast and its exact
// path, chunk statistics, the codecs and the refusals, read back with hyparquet (an independent reader).
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { parquetMetadata, parquetReadObjects, snappyUncompress } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { ParquetRecordWriter, SinkError, type Column, type ParquetCodec } from '../src/index.js';
import { snappyCompress } from '../src/snappy.js';
import { col, COLUMNS } from './parquet-fixture.js';

/** Row i of the test set: every fifth value null, values on the fast path and on the exact one. */
function row(i: number): Record<string, unknown> {
  const n = i % 5 === 4;
  return {
    ID: i,
    Big: n ? null : i % 3 === 0 ? String(9007199254740993n + BigInt(i)) : i % 3 === 1 ? String(-i * 1000) : -i,
    Price: n ? null : i % 4 === 0 ? `${i}.5E+1` : `-${i}.${String(i % 100).padStart(2, '0')}`,
    Small: n ? null : `${i % 1000}.${i % 10}`,
    Wide: n ? null : `-12345678901234567890123456.${String(i % 10000).padStart(4, '0')}`,
    At: n ? null : i % 2 === 0 ? new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString() : `2024-01-01T0${i % 10}:00:00+01:00`,
    AtNs: n ? null : `1969-12-31T23:59:59.${String(i % 10_000_000).padStart(7, '0')}Z`,
    Uid: n ? null : `0b8f4a8e-1c2d-4e5f-8a9b-${String(i).padStart(12, '0')}`,
    Name: n ? null : i % 7 === 0 ? `Zoë ${i}` : `Product ${i}`,
    Rate: n ? null : i % 11 === 0 ? 'NaN' : i / 8,
    Flag: n ? null : i % 3 === 0,
    Tiny: n ? null : i % 256,
  };
}

/** The expected value read back (decimals unscaled, timestamps in their unit). */
function expected(i: number): Record<string, unknown> {
  const r = row(i);
  if (i % 5 === 4) return { ...Object.fromEntries(Object.keys(r).map((k) => [k, undefined])), ID: i };
  const at = i % 2 === 0 ? BigInt(Date.UTC(2024, 0, 1) + i * 1000) * 1000n : BigInt(Date.UTC(2024, 0, 1, (i % 10) - 1)) * 1000n;
  return {
    ID: i,
    Big: BigInt(r['Big'] as string | number),
    Price: i % 4 === 0 ? BigInt(i) * 1000n + 500n : -(BigInt(i) * 100n + BigInt(i % 100)),
    Small: (i % 1000) * 1000 + (i % 10) * 100,
    Wide: -(123456789012345678901234560000n + BigInt(i % 10000)),
    At: at,
    AtNs: -1_000_000_000n + BigInt(i % 10_000_000) * 100n,
    Uid: `0b8f4a8e-1c2d-4e5f-8a9b-${String(i).padStart(12, '0')}`,
    Name: r['Name'],
    Rate: i % 11 === 0 ? NaN : i / 8,
    Flag: i % 3 === 0,
    Tiny: i % 256,
  };
}

async function write(columns: Column[], rows: Iterable<Record<string, unknown>>, options: { rowGroupSize?: number; codec?: ParquetCodec } = {}): Promise<ArrayBuffer> {
  const parts: Uint8Array[] = [];
  const writer = await ParquetRecordWriter.open({ columns, output: async (b) => { parts.push(b.slice()); }, ...options });
  for (const r of rows) await writer.add(r);
  await writer.close();
  const bytes = Buffer.concat(parts);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

function signedBytes(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return bytes.length && bytes[0]! & 0x80 ? n - (1n << BigInt(bytes.length * 8)) : n;
}

const keep = (v: bigint): bigint => v;
const decompressors = {
  GZIP: (input: Uint8Array) => zlib.gunzipSync(input),
  ZSTD: (input: Uint8Array) => (zlib as unknown as { zstdDecompressSync: (b: Uint8Array) => Uint8Array }).zstdDecompressSync(input),
};

/** Rows as hyparquet reads them, with DECIMAL and timestamps left raw (unscaled, in their unit). */
async function readRaw(file: ArrayBuffer): Promise<Record<string, unknown>[]> {
  const metadata = parquetMetadata(file);
  const raw = { ...metadata, schema: metadata.schema.map((e) => (e.converted_type === 'DECIMAL' ? { ...e, converted_type: undefined, logical_type: undefined } : e)) };
  const rows = await parquetReadObjects({
    file, metadata: raw, compressors: decompressors,
    parsers: { timestampFromMilliseconds: keep, timestampFromMicroseconds: keep, timestampFromNanoseconds: keep } as never,
  }) as Record<string, unknown>[];
  return rows.map((r) => ({ ...r, Wide: r['Wide'] === undefined || r['Wide'] === null ? r['Wide'] : signedBytes(r['Wide'] as Uint8Array) }));
}

const hasZstd = typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';

describe('ParquetRecordWriter', () => {
  it('writes row groups with nulls, every value exact, read back by hyparquet', async () => {
    const file = await write(COLUMNS, Array.from({ length: 2500 }, (_, i) => row(i)), { rowGroupSize: 1000 });
    const md = parquetMetadata(file);
    expect(md.num_rows).toBe(2500n);
    expect(md.row_groups.map((g) => g.num_rows)).toEqual([1000n, 1000n, 500n]);
    const back = await readRaw(file);
    expect(back.length).toBe(2500);
    for (let i = 0; i < 2500; i++) {
      const want = expected(i);
      for (const [k, v] of Object.entries(want)) {
        if (v === undefined) expect(back[i]![k] ?? undefined, `${k} of row ${i}`).toBeUndefined();
        else expect(back[i]![k], `${k} of row ${i}`).toEqual(v);
      }
    }
  });

  it('keeps each chunk\'s min, max and null count', async () => {
    const file = await write(COLUMNS, Array.from({ length: 2000 }, (_, i) => row(i)), { rowGroupSize: 1000 });
    const md = parquetMetadata(file, { parsers: { timestampFromMicroseconds: keep, timestampFromNanoseconds: keep } as never });
    const stats = (group: number, name: string): Record<string, unknown> =>
      md.row_groups[group]!.columns.find((c) => c.meta_data!.path_in_schema[0] === name)!.meta_data!.statistics as Record<string, unknown>;
    const rows = Array.from({ length: 1000 }, (_, i) => expected(1000 + i)).filter((r) => r['Big'] !== undefined);
    const big = rows.map((r) => r['Big'] as bigint);
    expect(stats(1, 'Big')).toMatchObject({ null_count: 200n, min_value: big.reduce((a, b) => (b < a ? b : a)), max_value: big.reduce((a, b) => (b > a ? b : a)) });
    expect(stats(1, 'ID')).toMatchObject({ null_count: 0n, min_value: 1000, max_value: 1999 });
    expect(stats(0, 'Name')).toMatchObject({ min_value: 'Product 1', max_value: 'Zoë 987' });
    expect(stats(0, 'Uid')).toMatchObject({ min_value: '0b8f4a8e-1c2d-4e5f-8a9b-000000000000', max_value: '0b8f4a8e-1c2d-4e5f-8a9b-000000000998' });
    // NaN (every 11th row) is no bound; hyparquet does not read nan_count back.
    expect(stats(0, 'Rate')).toMatchObject({ min_value: 1 / 8, max_value: 998 / 8 });
    expect(stats(0, 'Flag')).toMatchObject({ min_value: false, max_value: true });
    expect(stats(0, 'AtNs')).toMatchObject({ min_value: -1_000_000_000n, max_value: -1_000_000_000n + 99_800n });
    expect(Number(stats(0, 'Price')['min_value'])).toBeCloseTo(-998.98, 6);
    expect(Number(stats(0, 'Price')['max_value'])).toBeCloseTo(996 * 10 + 5, 6);
  });

  it('writes a file without rows, and a chunk of nulls only, that a reader opens', async () => {
    const empty = await write(COLUMNS, []);
    expect(parquetMetadata(empty).num_rows).toBe(0n);
    expect(await parquetReadObjects({ file: empty })).toEqual([]);
    const nulls = await write(COLUMNS, [0, 1, 2].map((ID) => ({ ID })));
    const chunk = parquetMetadata(nulls).row_groups[0]!.columns.find((c) => c.meta_data!.path_in_schema[0] === 'Big')!.meta_data!;
    expect(chunk.statistics).toMatchObject({ null_count: 3n });
    expect(chunk.statistics!.min_value).toBeUndefined();
    const back = await readRaw(nulls);
    expect(back.map((r) => [r['ID'], r['Big'] ?? null, r['Wide'] ?? null, r['Flag'] ?? null])).toEqual([[0, null, null, null], [1, null, null, null], [2, null, null, null]]);
  });

  it('orders text bounds by UTF-8 bytes, not UTF-16 units', async () => {
    const name = [col('Name', 'Edm.String', 'string')];
    const file = await write(name, ['\uE000', 'a', '\u{1F600}', 'b\u{1F600}', 'b\uFFFD'].map((Name) => ({ Name })));
    const s = parquetMetadata(file).row_groups[0]!.columns[0]!.meta_data!.statistics!;
    expect([s.min_value, s.max_value]).toEqual(['a', '\u{1F600}']);
  });

  it('compresses with each codec, read back by hyparquet; ZSTD needs Node >= 22.15', async () => {
    const rows = Array.from({ length: 1500 }, (_, i) => row(i));
    const sizes: Record<string, number> = {};
    for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', ...(hasZstd ? ['ZSTD' as const] : [])] as ParquetCodec[]) {
      const file = await write(COLUMNS, rows, { codec, rowGroupSize: 700 });
      expect(parquetMetadata(file).row_groups[0]!.columns.every((c) => c.meta_data!.codec === codec)).toBe(true);
      const back = await readRaw(file);
      expect(back.map((r) => r['Name'] ?? undefined)).toEqual(rows.map((r) => r['Name'] ?? undefined));
      expect(back[3]!['Big']).toBe(expected(3)['Big']);
      sizes[codec] = file.byteLength;
    }
    expect(sizes['SNAPPY']!).toBeLessThan(sizes['UNCOMPRESSED']!);
    expect(sizes['GZIP']!).toBeLessThan(sizes['SNAPPY']!);
    if (!hasZstd) {
      const error = await ParquetRecordWriter.open({ columns: COLUMNS, output: async () => {}, codec: 'ZSTD' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SinkError);
      expect((error as SinkError).code).toBe('codec');
      expect((error as Error).message).toMatch(/codec ZSTD needs Node >= 22\.15 .*this is Node 2\d\./);
    }
  });

  it('refuses a value its column cannot hold, naming it, and takes no more records after', async () => {
    const cases: [Column, unknown, RegExp][] = [
      [col('Tiny', 'Edm.Byte', 'int', { bits: 8, signed: false }), 256, /column Tiny \(Edm\.Byte\): 256 is outside the range of Edm\.Byte \(0 to 255\)/],
      [col('P', 'Edm.Decimal', 'decimal', { precision: 4, scale: 2 }), '123.45', /column P \(Edm\.Decimal\): "123\.45" has more than 4 digits/],
      [col('P', 'Edm.Decimal', 'decimal', { precision: 12, scale: 2 }), '12345678901.5', /column P \(Edm\.Decimal\): "12345678901\.5" has more than 12 digits/],
      [col('W', 'Edm.Decimal', 'decimal', { precision: 20, scale: 0 }), '1E+20', /column W \(Edm\.Decimal\): "1E\+20" has more than 20 digits/],
      [col('B', 'Edm.Int64', 'int64'), '9223372036854775808', /column B \(Edm\.Int64\): "9223372036854775808" is outside the 64-bit integer range/],
      [col('B', 'Edm.Int64', 'int64'), 2 ** 53 + 2, /no exact integer/],
      [col('U', 'Edm.Guid', 'guid'), '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5g', /column U \(Edm\.Guid\): "0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5g" is no GUID/],
      [col('T', 'Edm.DateTimeOffset', 'timestamp', { precision: 3 }), '2024-01-01T00:00:00.0001Z', /column T .* more fractional-second digits than the column keeps/],
      [col('T', 'Edm.DateTimeOffset', 'timestamp', { precision: 7 }), '2500-01-01T00:00:00Z', /column T .* outside the 64-bit integer range/],
      [col('K', 'Edm.Int32', 'int', { nullable: false }), null, /column K is not nullable/],
    ];
    for (const [column, value, message] of cases) {
      const writer = await ParquetRecordWriter.open({ columns: [column], output: async () => {} });
      await writer.add({ [column.name]: column.kind === 'guid' ? '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b' : column.nullable ? null : 1 });
      await expect(writer.add({ [column.name]: value })).rejects.toThrow(message);
      await expect(writer.add({ [column.name]: null })).rejects.toThrow(/takes no more records after an error/);
      await expect(writer.close()).rejects.toThrow(SinkError);
    }
  });

  it('Snappy output decompresses to its input (hyparquet\'s decoder), across 64 KiB blocks', () => {
    const inputs: Uint8Array[] = [];
    for (let n = 0; n < 40; n++) inputs.push(randomBytes(n), new Uint8Array(n).fill(7));
    const mixed = new Uint8Array(300_000);
    for (let i = 0; i < mixed.length; i++) mixed[i] = i % 97 < 20 ? (i * 31) & 0xff : mixed[Math.max(0, i - 1 - (i % 300))]!;
    inputs.push(randomBytes(200_000), new Uint8Array(150_000).fill(1), Buffer.from('abcdefgh'.repeat(20_000) + 'Product 12345 – ünïcødé'.repeat(3000)), mixed);
    for (const input of inputs) {
      const z = snappyCompress(input);
      const back = new Uint8Array(input.length);
      snappyUncompress(z, back);
      expect(Buffer.compare(back, input), `length ${input.length}`).toBe(0);
    }
    expect(snappyCompress(mixed).length).toBeLessThan(mixed.length / 2);
  });
});
