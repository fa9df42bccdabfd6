// Values a typed column cannot hold, as a node:http OData v4 service sends them (a Single beyond float32, integers
// beyond their type or not integers, a decimal beyond its precision, a day or a time not on the calendar or the clock,
// short base64, a Boolean that is neither): each is a `value` SinkError naming the entity set, the column, the key and
// the value, before anything is written, in a Parquet file (nothing of the row group written) and in a sync into
// SQLite and a real PostgreSQL (the page rolled back, the run state unchanged, the rerun applies the fixed page).
// Legal values at the edges (float32's largest, years below 100) are kept and read back: Parquet by DuckDB.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { edmxDocument, propertiesXML, sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { columnsOf, ParquetRecordWriter, SinkError, syncEntitySet } from '../src/index.js';
import { usePostgres } from './postgres.js';
import { sqliteRows } from './sync-helpers.js';

const METADATA = edmxDocument('4.0', 'Demo', [
  '<EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>',
  propertiesXML({
    ID: 'Edm.Int32!', Tiny: 'Edm.Byte', Signed: 'Edm.SByte', Short: 'Edm.Int16', Int: 'Edm.Int32', Big: 'Edm.Int64', Price: 'Edm.Decimal Precision="5" Scale="2"',
    Ratio: 'Edm.Single', Day: 'Edm.Date', At: 'Edm.DateTimeOffset Precision="6"', Clock: 'Edm.TimeOfDay', Uid: 'Edm.Guid', Blob: 'Edm.Binary', Flag: 'Edm.Boolean',
    Name: 'Edm.String', Tags: 'Collection(Edm.String)',
  }),
  '</EntityType><EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>',
].join(''));

/**
 * Legal values at the edges of their types: float32's largest magnitudes, years below 100 (not 19xx), unpadded base64url
 * (as v4 sends it), a date sent as a midnight in UTC (nothing lost: kept as its day).
 */
const GOOD = [
  {
    ID: 1, Tiny: 255, Signed: -128, Short: -32768, Int: 2147483647, Big: '9223372036854775807', Price: '-999.99', Ratio: 3.4028234663852886e38,
    Day: '0050-03-01', At: '0050-01-01T00:30:00+01:00', Clock: '23:59:59.999999', Uid: '0B8F4A8E-1C2D-4E5F-8A9B-0C1D2E3F4A5B', Blob: '_-8', Flag: true,
    Name: 'Zoë 😀', Tags: ['a'],
  },
  {
    ID: 2, Tiny: 0, Signed: 127, Short: 32767, Int: -2147483648, Big: '-9223372036854775808', Price: '0.5', Ratio: -3.4028235e38,
    Day: '2024-02-29T00:00:00Z', At: '2024-02-29T23:59:59.5Z', Clock: '00:00:00', Uid: '00000000-0000-0000-0000-000000000000', Blob: 'QUI=', Flag: 0,
    Name: '', Tags: [],
  },
];

/** One bad value per case: the property, the value as the service sends it, and what the error says of it. */
const BAD: { prop: string; value: unknown; why: RegExp }[] = [
  { prop: 'Ratio', value: 1e39, why: /1e\+39 is outside the range of Edm\.Single/ },
  { prop: 'Ratio', value: -3.5e38, why: /-3\.5e\+38 is outside the range of Edm\.Single/ },
  { prop: 'Tiny', value: 256, why: /256 is outside the range of Edm\.Byte \(0 to 255\)/ },
  { prop: 'Tiny', value: -1, why: /-1 is outside the range of Edm\.Byte \(0 to 255\)/ },
  { prop: 'Signed', value: 128, why: /128 is outside the range of Edm\.SByte \(-128 to 127\)/ },
  { prop: 'Short', value: 32768, why: /32768 is outside the range of Edm\.Int16 \(-32768 to 32767\)/ },
  { prop: 'Int', value: 2147483648, why: /2147483648 is outside the range of Edm\.Int32/ },
  { prop: 'Int', value: '', why: /"" is no integer/ },
  { prop: 'Int', value: '0x10', why: /"0x10" is no integer/ },
  { prop: 'Int', value: 1.5, why: /1\.5 is no integer/ },
  { prop: 'Big', value: '9223372036854775808', why: /"9223372036854775808" is outside the 64-bit integer range/ },
  { prop: 'Big', value: '12.5', why: /"12\.5" is no integer/ },
  { prop: 'Price', value: '1000.00', why: /"1000\.00" has more than 5 digits/ },
  { prop: 'Price', value: '1.005', why: /"1\.005" has more than 2 decimals/ },
  { prop: 'Price', value: '1e999999999', why: /"1e999999999" has an exponent beyond 10000/ },
  { prop: 'Day', value: '2024-02-30', why: /"2024-02-30" is no valid date/ },
  { prop: 'Day', value: '2023-02-29', why: /"2023-02-29" is no valid date/ },
  { prop: 'At', value: '2024-02-30T10:00:00Z', why: /"2024-02-30T10:00:00Z" is no valid date-time/ },
  { prop: 'At', value: '2024-01-01T10:75:00+01:00', why: /"2024-01-01T10:75:00\+01:00" is no valid date-time/ },
  { prop: 'At', value: '2024-01-01T10:00:00+01:75', why: /"2024-01-01T10:00:00\+01:75" is no valid date-time \(an offset not on the clock\)/ },
  { prop: 'Clock', value: '10:75:00', why: /"10:75:00" is no time of day/ },
  { prop: 'Clock', value: '24:00:00', why: /"24:00:00" is no time of day/ },
  { prop: 'Uid', value: '0B8F4A8E-1C2D-4E5F-8A9B-0C1D2E3F4A5', why: /"0B8F4A8E-1C2D-4E5F-8A9B-0C1D2E3F4A5" is no GUID/ },
  { prop: 'Blob', value: 'QUJDR', why: /"QUJDR" is no base64 text/ },
  { prop: 'Blob', value: 'QQ=', why: /"QQ=" is no base64 text/ },
  // Bits past the last byte in the last character, which decoding would drop: base64 (v2) and base64url (v4), padded or not.
  { prop: 'Blob', value: 'QR==', why: /"QR==" is no canonical base64 text: its last character has bits set past the last byte, which decoding would drop/ },
  { prop: 'Blob', value: 'QUJ', why: /"QUJ" is no canonical base64 text/ },
  { prop: 'Blob', value: '_x', why: /"_x" is no canonical base64 text/ },
  // A date-time for a date: its time of day or offset would be lost (the last was once stored as the next day, in UTC).
  { prop: 'Day', value: '2024-03-01T10:00:00Z', why: /"2024-03-01T10:00:00Z" is a date-time, not a date: its time of day would be lost/ },
  { prop: 'Day', value: '2024-03-01T00:00:00.5Z', why: /"2024-03-01T00:00:00\.5Z" is a date-time, not a date: its time of day would be lost/ },
  { prop: 'Day', value: '2024-03-01T00:00:00+02:00', why: /"2024-03-01T00:00:00\+02:00" is a date-time, not a date: its offset would be lost/ },
  { prop: 'Day', value: '2024-03-01T23:30:00-02:00', why: /"2024-03-01T23:30:00-02:00" is a date-time, not a date: its time of day would be lost/ },
  { prop: 'Flag', value: 2, why: /2 is no Boolean/ },
  { prop: 'Flag', value: '', why: /"" is no Boolean/ },
  { prop: 'Name', value: 'x\ud800y', why: /"x\\ud800y" holds a lone UTF-16 surrogate/ },
  { prop: 'Tags', value: ['x\ud800', '\\ud800 is text'], why: /\["x\\ud800","\\\\ud800 is text"\] holds a string with a lone UTF-16 surrogate, whose JSON escape readers refuse/ },
];

/** Dates and instants outside the years 0001-9999 a SQL column holds here (Parquet's DATE and TIMESTAMP hold them). */
const SQL_ONLY: { prop: string; value: unknown; why: RegExp }[] = [
  { prop: 'Day', value: '0000-12-31', why: /"0000-12-31" is outside the years 0001 to 9999/ },
  { prop: 'At', value: '9999-12-31T23:00:00-02:00', why: /"9999-12-31T23:00:00-02:00" is outside the years 0001 to 9999/ },
];

/** Text PostgreSQL cannot hold (a NUL character, in text and in jsonb), which Parquet and SQLite keep. */
const NOT_IN_POSTGRES = { Name: 'a\u0000b', Tags: ['c\u0000', '\\u0000 is text'] };
const PG_ONLY: { prop: string; value: unknown; why: RegExp }[] = [
  { prop: 'Name', value: NOT_IN_POSTGRES.Name, why: /"a\\u0000b" holds a NUL character, which PostgreSQL's text cannot hold/ },
  { prop: 'Tags', value: NOT_IN_POSTGRES.Tags, why: /\["c\\u0000","\\\\u0000 is text"\] holds a NUL character, which PostgreSQL's jsonb cannot hold/ },
];

/** What the service sends: the first page (or a full read), and the delta page after it. */
let full: unknown[] = GOOD;
let delta: unknown[] = [];
let srv: TestServer;
let od: ODataClient;
let dir: string;
const postgres = usePostgres();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-refused-'));
  srv = await startServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
    const version = { 'odata-version': '4.0' };
    const token = Number(searchParams.get('$deltatoken') ?? 0);
    if (pathname === '/odata/$metadata') res.writeHead(200, { 'content-type': 'application/xml', ...version }).end(METADATA);
    else if (pathname === '/odata/Items') {
      sendJSON(res, 200, { '@odata.context': '$metadata#Items', value: token === 0 ? full : delta, '@odata.deltaLink': `Items?$deltatoken=${token + 1}` }, version);
    } else sendJSON(res, 404, { error: { code: '404', message: 'not found' } }, version);
  });
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

const badRecord = (prop: string, value: unknown): Record<string, unknown> => ({ ...GOOD[1]!, ID: 3, [prop]: value });
const message = (prop: string, why: RegExp): RegExp => new RegExp(`^column ${prop} \\((?:Edm\\.\\w+|Collection\\(Edm\\.\\w+\\))\\): ${why.source}.* \\(entity set Items, the record with key ID=3\\)$`);

/** The service's records through the client into a Parquet writer; the byte pieces it gave out, or its error. */
async function exportParquet(): Promise<{ pieces: Uint8Array[]; error?: unknown }> {
  const pieces: Uint8Array[] = [];
  const writer = await ParquetRecordWriter.open({ columns: columnsOf(await od.metadata(), 'Items'), entitySet: 'Items', output: async (b) => { pieces.push(b.slice()); } });
  try {
    for await (const r of od.from('Items').stream()) if (r.value) await writer.add(r.value as Record<string, unknown>);
    await writer.close();
    return { pieces };
  } catch (error) {
    return { pieces, error };
  }
}

describe('Parquet: values a column cannot hold', () => {
  it('legal values at the edges are kept, read back by DuckDB (and text PostgreSQL could not hold)', async () => {
    full = [...GOOD, { ...GOOD[1], ID: 3, ...NOT_IN_POSTGRES, Day: '0000-12-31', At: '9999-12-31T23:00:00-02:00' }];
    const { pieces, error } = await exportParquet();
    full = GOOD;
    expect(error).toBeUndefined();
    const path = join(dir, 'good.parquet');
    await writeFile(path, Buffer.concat(pieces));
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      const rows = (await con.runAndReadAll(`SELECT ID, Tiny, Signed, Short, Int, Big::VARCHAR AS Big, Price::VARCHAR AS Price, Ratio, Day::VARCHAR AS Day,
        epoch_us("At")::VARCHAR AS "At", Clock::VARCHAR AS Clock, Uid::VARCHAR AS Uid, hex(Blob) AS Blob, Flag, Name, Tags::VARCHAR AS Tags
        FROM read_parquet('${path}') WHERE ID < 3 ORDER BY ID`)).getRowObjects();
      expect(rows).toEqual([
        {
          ID: 1, Tiny: 255, Signed: -128, Short: -32768, Int: 2147483647, Big: '9223372036854775807', Price: '-999.99', Ratio: 3.4028234663852886e38,
          Day: '0050-03-01', At: String(Date.parse('0049-12-31T23:30:00Z') * 1000), Clock: '23:59:59.999999', Uid: '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', Blob: 'FFEF', Flag: true,
          Name: 'Zoë 😀', Tags: '["a"]',
        },
        {
          ID: 2, Tiny: 0, Signed: 127, Short: 32767, Int: -2147483648, Big: '-9223372036854775808', Price: '0.50', Ratio: -3.4028234663852886e38,
          Day: '2024-02-29', At: String(Date.parse('2024-02-29T23:59:59.5Z') * 1000), Clock: '00:00:00', Uid: '00000000-0000-0000-0000-000000000000', Blob: '4142', Flag: false,
          Name: '', Tags: '[]',
        },
      ]);
      const third = (await con.runAndReadAll(`SELECT Name, Tags::VARCHAR AS Tags, ("Day" - DATE '1970-01-01')::INTEGER AS Days, epoch_us("At")::VARCHAR AS "At"
        FROM read_parquet('${path}') WHERE ID = 3`)).getRowObjects();
      const yearZero = new Date(0);
      yearZero.setUTCFullYear(0, 11, 31);
      expect(third).toEqual([{ Name: 'a\u0000b', Tags: JSON.stringify(NOT_IN_POSTGRES.Tags), Days: yearZero.getTime() / 86_400_000, At: String(Date.parse('+010000-01-01T01:00:00Z') * 1000) }]);
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });

  it('Date objects (as a caller passes them to add) are kept as their text is, outside the years 0001-9999 too, read back by DuckDB; an invalid Date is refused', async () => {
    const utc = (year: number, month: number, d: number, ms = 0): Date => {
      const x = new Date(ms);
      x.setUTCFullYear(year, month - 1, d);
      return x;
    };
    const columns = columnsOf(await od.metadata(), 'Items');
    const write = async (records: Record<string, unknown>[]): Promise<{ pieces: Uint8Array[]; error?: unknown }> => {
      const pieces: Uint8Array[] = [];
      const writer = await ParquetRecordWriter.open({ columns, entitySet: 'Items', output: async (b) => { pieces.push(b.slice()); } });
      try {
        for (const r of records) await writer.add(r);
        await writer.close();
        return { pieces };
      } catch (error) {
        return { pieces, error };
      }
    };
    const days: [Date, string][] = [[utc(10000, 1, 1), '10000-01-01'], [utc(0, 12, 31), '0000-12-31'], [utc(-1, 6, 15), '-0001-06-15'], [utc(50, 3, 1), '0050-03-01']];
    const at: [Date, string][] = [[utc(10000, 1, 1, 3_600_000), '10000-01-01T01:00:00Z'], [utc(0, 12, 31, 500), '0000-12-31T00:00:00.5Z'], [utc(-1, 1, 1), '-0001-01-01T00:00:00Z'], [utc(50, 3, 1), '0050-03-01T00:00:00Z']];
    const rows = (form: 0 | 1): Record<string, unknown>[] => days.map((d, i) => ({ ...GOOD[1]!, ID: i + 1, Day: d[form], At: at[i]![form] }));
    const read = async (pieces: Uint8Array[], name: string): Promise<Record<string, unknown>[]> => {
      const path = join(dir, name);
      await writeFile(path, Buffer.concat(pieces));
      const db = await DuckDBInstance.create(':memory:');
      const con = await db.connect();
      try {
        return (await con.runAndReadAll(`SELECT ID, ("Day" - DATE '1970-01-01')::INTEGER AS Days, epoch_us("At")::VARCHAR AS "At" FROM read_parquet('${path}') ORDER BY ID`)).getRowObjects();
      } finally {
        con.closeSync();
        db.closeSync();
      }
    };
    const [dates, texts] = [await write(rows(0)), await write(rows(1))];
    expect([dates.error, texts.error]).toEqual([undefined, undefined]);
    const read0 = await read(dates.pieces, 'dates.parquet');
    expect(read0).toEqual(await read(texts.pieces, 'texts.parquet'));
    expect(read0).toEqual(days.map(([d], i) => ({ ID: i + 1, Days: d.getTime() / 86_400_000, At: String(at[i]![0].getTime() * 1000) })));
    for (const prop of ['Day', 'At']) {
      const { pieces, error } = await write([GOOD[0]!, badRecord(prop, new Date(NaN))]);
      expect(error).toMatchObject({ code: 'value', message: expect.stringMatching(message(prop, /Invalid Date is an invalid date/)) });
      expect(pieces.map((p) => Buffer.from(p).toString('latin1'))).toEqual(['PAR1']);
    }
  });

  for (const { prop, value, why } of BAD) {
    it(`${prop} ${JSON.stringify(value)}: a value SinkError naming the set, column, key and value; no row group written`, async () => {
      full = [GOOD[0], badRecord(prop, value)];
      try {
        const { pieces, error } = await exportParquet();
        expect(error).toBeInstanceOf(SinkError);
        expect(error).toMatchObject({ code: 'value', message: expect.stringMatching(message(prop, why)) });
        // Only the file's magic number went out: no row group with the other record, no footer.
        expect(pieces.map((p) => Buffer.from(p).toString('latin1'))).toEqual(['PAR1']);
      } finally {
        full = GOOD;
      }
    });
  }
});

describe('sync: values a column cannot hold', () => {
  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: each bad value in a delta page is refused naming set, column, key and value; the page rolled back, the state kept, the rerun applies the fixed page`, async () => {
      const path = join(dir, 'items.db');
      const into = dialect === 'sqlite' ? `sqlite:${path}` : postgres().url;
      const read = async (sql: string): Promise<Record<string, unknown>[]> => (dialect === 'sqlite' ? sqliteRows(path, sql) : (await postgres().client.query(sql)).rows);
      full = GOOD;
      delta = [];
      expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ run: 'load', upserted: 2 });
      const table = dialect === 'sqlite'
        ? 'SELECT ID, Tiny, Short, CAST(Big AS TEXT) AS Big, Price, Ratio, Day, "At", Clock, hex(Blob) AS Blob, Flag FROM Items ORDER BY ID'
        : `SELECT "ID", "Tiny", "Short", "Big"::text AS "Big", "Price"::text AS "Price", "Ratio"::text AS "Ratio", "Day"::text AS "Day",
             to_char("At" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.USZ') AS "At", "Clock"::text AS "Clock", encode("Blob", 'hex') AS "Blob", "Flag" FROM "Items" ORDER BY "ID"`;
      const loaded = await read(table);
      expect(loaded).toEqual(dialect === 'sqlite'
        ? [
          { ID: 1, Tiny: 255, Short: -32768, Big: '9223372036854775807', Price: '-999.99', Ratio: 3.4028234663852886e38, Day: '0050-03-01', At: '0049-12-31T23:30:00Z', Clock: '23:59:59.999999', Blob: 'FFEF', Flag: 1 },
          { ID: 2, Tiny: 0, Short: 32767, Big: '-9223372036854775808', Price: '0.5', Ratio: -3.4028235e38, Day: '2024-02-29', At: '2024-02-29T23:59:59.5Z', Clock: '00:00:00', Blob: '4142', Flag: 0 },
        ]
        : [
          { ID: 1, Tiny: 255, Short: -32768, Big: '9223372036854775807', Price: '-999.99', Ratio: '3.4028235e+38', Day: '0050-03-01', At: '0049-12-31T23:30:00.000000Z', Clock: '23:59:59.999999', Blob: 'ffef', Flag: true },
          { ID: 2, Tiny: 0, Short: 32767, Big: '-9223372036854775808', Price: '0.50', Ratio: '-3.4028235e+38', Day: '2024-02-29', At: '2024-02-29T23:59:59.500000Z', Clock: '00:00:00', Blob: '4142', Flag: false },
        ]);
      const stateSQL = dialect === 'sqlite' ? 'SELECT * FROM sluice_sync' : 'SELECT * FROM sluice_sync';
      const state = await read(stateSQL);
      for (const { prop, value, why } of dialect === 'postgres' ? [...BAD, ...SQL_ONLY, ...PG_ONLY] : [...BAD, ...SQL_ONLY]) {
        delta = [{ ...GOOD[0], Tiny: 7 }, badRecord(prop, value)];
        const refused = await syncEntitySet({ od, entitySet: 'Items', into }).catch((e: unknown) => e);
        expect(refused, `${prop} ${JSON.stringify(value)}`).toBeInstanceOf(SinkError);
        expect(refused).toMatchObject({ code: 'value', message: expect.stringMatching(message(prop, why)) });
        expect(await read(table)).toEqual(loaded);
        expect(await read(stateSQL)).toEqual(state);
      }
      // A removal whose key its column cannot hold: named with the set and the removed id, nothing applied.
      delta = [{ ...GOOD[0], Tiny: 7 }, { '@odata.context': '$metadata#Items/$deletedEntity', id: 'Items(99999999999)', reason: 'deleted' }];
      const removal = await syncEntitySet({ od, entitySet: 'Items', into }).catch((e: unknown) => e);
      expect(removal).toMatchObject({
        code: 'value',
        message: 'column ID (Edm.Int32): "99999999999" is outside the range of Edm.Int32 (-2147483648 to 2147483647) (entity set Items, the removal of "Items(99999999999)")',
      });
      expect(await read(table)).toEqual(loaded);
      expect(await read(stateSQL)).toEqual(state);
      // Fixed: a Single float32 rounds to zero (PostgreSQL's real refuses the unrounded text), SQLite's text as sent.
      delta = [{ ...GOOD[0], Tiny: 7 }, { ...badRecord('Tiny', 3), Ratio: 1e-50, ...(dialect === 'sqlite' ? NOT_IN_POSTGRES : {}) }];
      expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ run: 'delta', upserted: 2 });
      const after = await read(table);
      expect(after.map((r) => r['ID'])).toEqual([1, 2, 3]);
      expect(after[0]).toMatchObject({ Tiny: 7 });
      expect(after[2]).toMatchObject({ Tiny: 3, Ratio: dialect === 'sqlite' ? 1e-50 : '0' });
      // The stored bytes, by hex(): Node 22's node:sqlite (the driver there) reads text only up to a NUL, though it
      // binds and stores the whole value (Node 24's and better-sqlite3 read it whole).
      if (dialect === 'sqlite') expect(sqliteRows(path, 'SELECT hex(Name) AS Name, Tags FROM Items WHERE ID = 3')).toEqual([{ Name: Buffer.from('a\u0000b').toString('hex').toUpperCase(), Tags: JSON.stringify(NOT_IN_POSTGRES.Tags) }]);
    }, 120_000);
  }

  it('sqlite: an instant the client gives as a Date (dates: \'Date\') outside the years 0001-9999 is refused as its text is; one inside is kept as its text is', async () => {
    const path = join(dir, 'dates.db');
    const dated = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false }, dates: 'Date' });
    try {
      full = GOOD;
      delta = [];
      expect(await syncEntitySet({ od: dated, entitySet: 'Items', into: `sqlite:${path}` })).toMatchObject({ run: 'load', upserted: 2 });
      expect(sqliteRows(path, 'SELECT "At" FROM Items ORDER BY ID')).toEqual([{ At: '0049-12-31T23:30:00Z' }, { At: '2024-02-29T23:59:59.5Z' }]);
      for (const value of ['9999-12-31T23:00:00-02:00', '0000-12-31T23:00:00Z']) {
        delta = [badRecord('At', value)];
        const refused = await syncEntitySet({ od: dated, entitySet: 'Items', into: `sqlite:${path}` }).catch((e: unknown) => e);
        expect(refused, value).toMatchObject({ code: 'value', message: expect.stringMatching(message('At', /\S+Z is outside the years 0001 to 9999/)) });
      }
    } finally {
      full = GOOD;
      delta = [];
      await dated.close();
    }
  }, 120_000);

  for (const dialect of ['sqlite', 'postgres'] as const) {
    it(`${dialect}: a bad value in the first load is refused before the page is written (no row, no resume link); the rerun loads the fixed set`, async () => {
      const path = join(dir, 'load.db');
      const into = dialect === 'sqlite' ? `sqlite:${path}` : postgres().url;
      const read = async (sql: string): Promise<Record<string, unknown>[]> => (dialect === 'sqlite' ? sqliteRows(path, sql) : (await postgres().client.query(sql)).rows);
      full = [...GOOD, badRecord('Ratio', 1e39)];
      try {
        const refused = await syncEntitySet({ od, entitySet: 'Items', into, table: 'loaded' }).catch((e: unknown) => e);
        expect(refused).toBeInstanceOf(SinkError);
        expect(refused).toMatchObject({ code: 'value', message: expect.stringMatching(message('Ratio', /1e\+39 is outside the range of Edm\.Single/)) });
        // The load had begun (its state and empty staging table were committed before the first page); the page was not.
        expect(await read(`SELECT phase, resume_link, upserted FROM sluice_sync WHERE table_name = 'loaded'`)).toEqual([{ phase: 'loading', resume_link: null, upserted: dialect === 'sqlite' ? 0 : '0' }]);
        expect(await read('SELECT count(*) AS n FROM loaded__sluice_load')).toEqual([{ n: dialect === 'sqlite' ? 0 : '0' }]);
        full = [...GOOD, badRecord('Ratio', 1.5)];
        expect(await syncEntitySet({ od, entitySet: 'Items', into, table: 'loaded' })).toMatchObject({ upserted: 3 });
        expect((await read('SELECT "ID", "Ratio" FROM loaded ORDER BY "ID"')).map((r) => [r['ID'], Math.fround(Number(r['Ratio']))])).toEqual([[1, 3.4028234663852886e38], [2, -3.4028234663852886e38], [3, 1.5]]);
      } finally {
        full = GOOD;
      }
    }, 120_000);
  }
});
