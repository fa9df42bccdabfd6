// `sluice export --format parquet` through the real CLI against a node:http OData v4 service that sends
// exact values (29-digit decimals, Int64 above 2^53, offsets, 7-digit fractions), read back with hyparquet.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import zlib from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edmxDocument, propertiesXML, sendJSON, sluiceCLI, startServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

const METADATA = edmxDocument('4.0', 'Demo', [
  `<ComplexType Name="Address">${propertiesXML({ City: 'Edm.String', Zip: 'Edm.String' })}</ComplexType>`,
  '<EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>',
  propertiesXML({
    ID: 'Edm.Int32!', Big: 'Edm.Int64', Amount: 'Edm.Decimal Precision="38" Scale="10"', Small: 'Edm.Decimal Precision="9" Scale="2"',
    Mid: 'Edm.Decimal Precision="18" Scale="4"', Loose: 'Edm.Decimal', Price: 'Edm.Double', Ratio: 'Edm.Single', Tiny: 'Edm.Byte', Signed: 'Edm.SByte',
    Short: 'Edm.Int16', Flag: 'Edm.Boolean', Day: 'Edm.Date', At: 'Edm.DateTimeOffset Precision="7"', AtMs: 'Edm.DateTimeOffset Precision="3"',
    Clock: 'Edm.TimeOfDay', Uid: 'Edm.Guid', Blob: 'Edm.Binary', Name: 'Edm.String', Address: 'Demo.Address', Tags: 'Collection(Edm.String)',
  }),
  '</EntityType><EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>',
].join(''));

const ROWS: Record<string, unknown>[] = [
  {
    ID: 1, Big: '9007199254740993', Amount: '1234567890123456789012345678.0123456789', Small: '-1234567.89', Mid: '99999999999999.9999', Loose: '3.14159265358979323846',
    Price: 0.1, Ratio: 1.5, Tiny: 255, Signed: -128, Short: -32768, Flag: true, Day: '2024-02-29',
    At: '2024-03-01T10:00:00.1234567+02:00', AtMs: '1999-12-31T23:59:59.999-05:30', Clock: '13:20:05.123456',
    Uid: '0B8F4A8E-1C2D-4E5F-8A9B-0C1D2E3F4A5B', Blob: 'AQID_w', Name: 'Zoë, "quoted"', Address: { City: 'Köln', Zip: '50667' }, Tags: ['a', 'b'],
  },
  {
    ID: 2, Big: '-9223372036854775808', Amount: '-0.0000000001', Small: '0', Mid: '-1', Loose: '-1E+3',
    Price: -1e308, Ratio: -0.25, Tiny: 0, Signed: 127, Short: 32767, Flag: false, Day: '1969-12-31',
    At: '1969-12-31T23:59:59.9999999Z', AtMs: '2024-03-01T00:00:00Z', Clock: '00:00:00',
    Uid: '00000000-0000-0000-0000-000000000000', Blob: '', Name: '', Address: { City: null, Zip: null }, Tags: [],
  },
  { ID: 3, Big: null, Amount: null, Small: null, Mid: null, Loose: null, Price: null, Ratio: null, Tiny: null, Signed: null, Short: null, Flag: null, Day: null, At: null, AtMs: null, Clock: null, Uid: null, Blob: null, Name: null, Address: null, Tags: [] },
];

let srv: TestServer;
let cli: SluiceCLI;
let dir: string;
/** Rows the service sends, replaced by a test that needs a bad value. */
let rows = ROWS;

beforeAll(async () => {
  [srv, cli, dir] = await Promise.all([
    startServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const headers = { 'odata-version': '4.0' };
      if (url.pathname === '/odata/$metadata') {
        res.writeHead(200, { 'content-type': 'application/xml', ...headers });
        res.end(METADATA);
        return;
      }
      if (url.pathname === '/odata/Items') {
        const select = url.searchParams.get('$select')?.split(',');
        const value = select ? rows.map((r) => Object.fromEntries(select.map((s) => [s, r[s]]))) : rows;
        sendJSON(res, 200, { '@odata.context': '$metadata#Items', value }, headers);
        return;
      }
      sendJSON(res, 404, { error: { code: '404', message: 'not found' } }, headers);
    }),
    sluiceCLI(),
    mkdtemp(join(tmpdir(), 'sluice-parquet-')),
  ]);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

type Element = Record<string, unknown> & { name: string };

/** hyparquet reads Snappy itself; gzip and Zstandard through node:zlib. */
const DECOMPRESSORS = {
  GZIP: (input: Uint8Array) => zlib.gunzipSync(input),
  ZSTD: (input: Uint8Array) => (zlib as unknown as { zstdDecompressSync: (b: Uint8Array) => Uint8Array }).zstdDecompressSync(input),
};
const HAS_ZSTD = typeof (zlib as { zstdCompressSync?: unknown }).zstdCompressSync === 'function';

/** The file's schema (leaf elements by name), and its rows with decimals unscaled and timestamps as bigints. */
async function readBack(file: string): Promise<{ schema: Map<string, Element>; rows: Record<string, unknown>[]; numRows: bigint }> {
  const bytes = await readFile(file);
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const metadata = parquetMetadata(buffer);
  const schema = new Map(metadata.schema.slice(1).map((e) => [e.name, e as unknown as Element]));
  // hyparquet turns DECIMAL into a float: read the unscaled values raw instead (the real schema is checked above).
  const raw = { ...metadata, schema: metadata.schema.map((e) => (e.converted_type === 'DECIMAL' ? { ...e, converted_type: undefined, logical_type: undefined } : e)) };
  const keep = (v: bigint): bigint => v;
  const rows = await parquetReadObjects({
    file: buffer, metadata: raw, utf8: false, compressors: DECOMPRESSORS,
    parsers: { timestampFromMilliseconds: keep, timestampFromMicroseconds: keep, timestampFromNanoseconds: keep } as never,
  }) as Record<string, unknown>[];
  return { schema, rows, numRows: metadata.num_rows };
}

/** A two's-complement big-endian integer (a FIXED_LEN_BYTE_ARRAY decimal). */
function signedBytes(bytes: Uint8Array): bigint {
  let n = 0n;
  for (const b of bytes) n = (n << 8n) | BigInt(b);
  return bytes.length && bytes[0]! & 0x80 ? n - (1n << BigInt(bytes.length * 8)) : n;
}

describe('sluice export --format parquet', () => {
  it('types every column from $metadata and keeps every value exact, read back by an independent reader', async () => {
    const out = join(dir, 'items.parquet');
    const r = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet', '--out', out]);
    expect(r.stderr).toMatch(/exported 3 records of Items to .*items\.parquet/);
    expect(r.code).toBe(0);
    const { schema, rows: back, numRows } = await readBack(out);
    expect(numRows).toBe(3n);
    expect([...schema.keys()]).toEqual(Object.keys(ROWS[0]!));
    const el = (name: string): Element => schema.get(name)!;
    expect(el('ID')).toMatchObject({ type: 'INT32', repetition_type: 'REQUIRED', converted_type: 'INT_32' });
    expect(el('Big')).toMatchObject({ type: 'INT64', repetition_type: 'OPTIONAL', converted_type: 'INT_64' });
    expect(el('Amount')).toMatchObject({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, converted_type: 'DECIMAL', precision: 38, scale: 10, logical_type: { type: 'DECIMAL', precision: 38, scale: 10 } });
    expect(el('Small')).toMatchObject({ type: 'INT32', converted_type: 'DECIMAL', precision: 9, scale: 2 });
    expect(el('Mid')).toMatchObject({ type: 'INT64', converted_type: 'DECIMAL', precision: 18, scale: 4 });
    expect(el('Loose')).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'STRING' } });
    expect(el('Price')).toMatchObject({ type: 'DOUBLE' });
    expect(el('Ratio')).toMatchObject({ type: 'FLOAT' });
    expect(el('Tiny')).toMatchObject({ type: 'INT32', converted_type: 'UINT_8' });
    expect(el('Signed')).toMatchObject({ type: 'INT32', converted_type: 'INT_8' });
    expect(el('Short')).toMatchObject({ type: 'INT32', converted_type: 'INT_16' });
    expect(el('Flag')).toMatchObject({ type: 'BOOLEAN' });
    expect(el('Day')).toMatchObject({ type: 'INT32', logical_type: { type: 'DATE' } });
    expect(el('At')).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'NANOS' } });
    expect(el('AtMs')).toMatchObject({ type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' } });
    expect(el('Clock')).toMatchObject({ type: 'INT64', logical_type: { type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' } });
    expect(el('Uid')).toMatchObject({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } });
    expect(el('Blob')).toMatchObject({ type: 'BYTE_ARRAY' });
    expect(el('Blob')['logical_type']).toBeUndefined();
    expect(el('Name')).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'STRING' } });
    expect(el('Address')).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } });
    expect(el('Tags')).toMatchObject({ type: 'BYTE_ARRAY', logical_type: { type: 'JSON' } });

    const [a, b, c] = back as [Record<string, unknown>, Record<string, unknown>, Record<string, unknown>];
    expect(a['ID']).toBe(1);
    expect(a['Big']).toBe(9007199254740993n);
    expect(b['Big']).toBe(-9223372036854775808n);
    expect(signedBytes(a['Amount'] as Uint8Array)).toBe(12345678901234567890123456780123456789n);
    expect(signedBytes(b['Amount'] as Uint8Array)).toBe(-1n);
    expect([a['Small'], b['Small']]).toEqual([-123456789, 0]);
    expect([a['Mid'], b['Mid']]).toEqual([999999999999999999n, -10000n]);
    expect([a['Loose'], b['Loose']]).toEqual(['3.14159265358979323846', '-1000']);
    expect([a['Price'], b['Price'], a['Ratio'], b['Ratio']]).toEqual([0.1, -1e308, 1.5, -0.25]);
    expect([a['Tiny'], a['Signed'], a['Short'], b['Signed'], b['Short']]).toEqual([255, -128, -32768, 127, 32767]);
    expect([a['Flag'], b['Flag']]).toEqual([true, false]);
    expect((a['Day'] as Date).toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect((b['Day'] as Date).toISOString()).toBe('1969-12-31T00:00:00.000Z');
    // 10:00:00.1234567 at +02:00 is 08:00:00.1234567Z; -05:30 moves the millisecond instant into 2000.
    expect(a['At']).toBe(BigInt(Date.parse('2024-03-01T08:00:00Z')) * 1_000_000n + 123_456_700n);
    expect(b['At']).toBe(-100n);
    expect(a['AtMs']).toBe(BigInt(Date.parse('2000-01-01T05:29:59.999Z')));
    expect(a['Clock']).toBe(BigInt((13 * 3600 + 20 * 60 + 5) * 1_000_000 + 123_456));
    expect(b['Clock']).toBe(0n);
    expect(a['Uid']).toBe('0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b');
    expect([...(a['Blob'] as Uint8Array)]).toEqual([1, 2, 3, 255]);
    expect(a['Name']).toBe('Zoë, "quoted"');
    expect(a['Address']).toEqual({ City: 'Köln', Zip: '50667' });
    expect(a['Tags']).toEqual(['a', 'b']);
    expect(Object.entries(c).filter(([k, v]) => k !== 'ID' && k !== 'Tags' && v !== null && v !== undefined)).toEqual([]);
  });

  it('writes only the --select columns, in its order', async () => {
    const out = join(dir, 'select.parquet');
    const r = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet', '--out', out, '--select', 'Amount,ID', '--quiet']);
    expect(r.code).toBe(0);
    const { schema, rows: back } = await readBack(out);
    expect([...schema.keys()]).toEqual(['Amount', 'ID']);
    expect(back.map((x) => x['ID'])).toEqual([1, 2, 3]);
    expect(srv.requests.at(-1)!.url).toContain('$select=Amount,ID');
  });

  it('a value its column cannot hold exactly (more decimals, a Single beyond float32) fails, naming the set, column, key and value, and leaves no file', async () => {
    for (const [bad, said] of [
      [{ Small: '1.005' }, /column Small \(Edm\.Decimal\): "1\.005" has more than 2 decimals \(entity set Items, the record with key ID=2\)/],
      [{ Ratio: 1e39 }, /column Ratio \(Edm\.Single\): 1e\+39 is outside the range of Edm\.Single .* \(entity set Items, the record with key ID=2\)/],
    ] as const) {
      rows = [ROWS[0]!, { ...ROWS[0]!, ID: 2, ...bad }];
      try {
        const out = join(dir, 'bad.parquet');
        const r = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet', '--out', out]);
        expect(r.code).toBe(1);
        expect(r.stderr).toMatch(said);
        expect(existsSync(out)).toBe(false);
        expect((await readdir(dir)).filter((f) => f.includes('bad.parquet'))).toEqual([]);
      } finally {
        rows = ROWS;
      }
    }
  });

  it('--compression: gzip, none and (on Node >= 22.15) zstd read back; zstd on an older Node and --compression without Parquet refused before reading', async () => {
    for (const [flag, codec] of [['gzip', 'GZIP'], ['none', 'UNCOMPRESSED'], ...(HAS_ZSTD ? [['zstd', 'ZSTD']] : [])] as const) {
      const out = join(dir, `c-${flag}.parquet`);
      const r = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet', '--out', out, '--compression', flag, '--quiet']);
      expect(r.code).toBe(0);
      const bytes = await readFile(out);
      const md = parquetMetadata(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      expect(md.row_groups[0]!.columns.map((c) => c.meta_data!.codec)).toEqual(Object.keys(ROWS[0]!).map(() => codec));
      const { rows: back } = await readBack(out);
      expect(back.map((x) => x['Big'] ?? null)).toEqual([9007199254740993n, -9223372036854775808n, null]);
      expect(back[0]!['Name']).toBe('Zoë, "quoted"');
    }
    const before = srv.requests.length;
    if (!HAS_ZSTD) {
      const zstd = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet', '--out', join(dir, 'z.parquet'), '--compression', 'zstd']);
      expect(zstd.code).toBe(2);
      expect(zstd.stderr).toMatch(/--compression zstd: needs Node >= 22\.15 .*this is Node 2\d\./);
    }
    const ndjson = await cli.run(['export', `${srv.origin}/odata/`, 'Items', '--out', join(dir, 'c.ndjson'), '--compression', 'gzip']);
    expect(ndjson.code).toBe(2);
    expect(ndjson.stderr).toMatch(/--compression goes with --format parquet \(not ndjson\)/);
    expect(srv.requests.length).toBe(before);
  }, 60_000);

  it('refuses before reading: no --out, --delta-state, a --select name the type lacks', async () => {
    const base = ['export', `${srv.origin}/odata/`, 'Items', '--format', 'parquet'];
    const before = srv.requests.length;
    const noOut = await cli.run(base);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--format parquet needs --out <file>/);
    const delta = await cli.run([...base, '--out', join(dir, 'd.parquet'), '--delta-state', join(dir, 'd.json')]);
    expect(delta.code).toBe(2);
    expect(srv.requests.length).toBe(before);
    const select = await cli.run([...base, '--out', join(dir, 's.parquet'), '--select', 'ID,Nope']);
    expect(select.code).toBe(2);
    expect(select.stderr).toMatch(/--select names "Nope", which is no property of Demo\.Item/);
    expect(srv.requests.slice(before).some((q) => q.url?.includes('/Items'))).toBe(false);
  });
});
