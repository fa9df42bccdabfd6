// Exact value conversion and key reading, case by case.
import { describe, expect, it } from 'vitest';
import { keyOfRemovedId, SinkError, type Column } from '../src/index.js';
import {
  binaryBytes, decimalText, float, guidBytes, guidText, int64, int64Value, unscaledDecimal, unscaledValue,
} from '../src/values.js';
import { dateText, epochDays, epochNanos, inUnit, instantValue, isoUTC, timeNanos, timeText } from '../src/temporal.js';
import { shownValue } from '../src/values.js';
import { sqlValue } from '../src/sync/sql-types.js';
import { civilDays, isCalendarDate } from '../src/calendar.js';

const col = (edmType: string): Column => ({ name: 'X', edmType, kind: 'decimal', nullable: true, key: false });

describe('values', () => {
  it('decimals: exponents, signs and scales without a float', () => {
    const d = col('Edm.Decimal');
    expect(decimalText(d, '1.5E+3')).toBe('1500');
    expect(decimalText(d, '-2.5e-3')).toBe('-0.0025');
    expect(decimalText(d, '-0.000')).toBe('0.000');
    expect(decimalText(d, '00012.3400')).toBe('12.3400');
    expect(unscaledDecimal(d, '-12345678901234567890123456789.12', 2)).toBe(-1234567890123456789012345678912n);
    expect(unscaledDecimal(d, '12.300', 2)).toBe(1230n);
    expect(() => unscaledDecimal(d, '12.301', 2)).toThrow(/X \(Edm\.Decimal\): "12\.301" has more than 2 decimals/);
    expect(() => decimalText(d, 'abc')).toThrow(SinkError);
  });

  it('Doubles: numbers, and texts as the OData client reads them ("INF", "-INF", "NaN", "1e400"); any other text a value SinkError naming the column', () => {
    const c = col('Edm.Double');
    expect([float(c, 'INF'), float(c, '-INF'), float(c, '1.5E+2'), float(c, '1e400'), float(c, -0.5)]).toEqual([Infinity, -Infinity, 150, Infinity, -0.5]);
    expect(float(c, 'NaN')).toBeNaN();
    expect(float(c, NaN)).toBeNaN();
    for (const bad of ['  1 ', '', '0x10', 'Infinity', null, true, {}]) {
      const error = (() => { try { float(c, bad); } catch (e) { return e; } })();
      expect(error, String(bad)).toBeInstanceOf(SinkError);
      expect(error).toMatchObject({ code: 'value', message: expect.stringMatching(/^column X \(Edm\.Double\): .* is no number$/) });
    }
  });

  it('Int64: text and safe integers; a rounded number is refused', () => {
    const c = col('Edm.Int64');
    expect(int64(c, '-9223372036854775808')).toBe(-9223372036854775808n);
    expect(int64(c, 42)).toBe(42n);
    expect(() => int64(c, 2 ** 53 + 2)).toThrow(/no exact integer/);
  });

  it('instants: offsets, 9 fractional digits, before 1970', () => {
    const c = col('Edm.DateTimeOffset');
    expect(isoUTC(epochNanos(c, '2024-03-01T00:30:00.123456789+01:00'))).toBe('2024-02-29T23:30:00.123456789Z');
    expect(isoUTC(epochNanos(c, '1969-12-31T23:59:59.5Z'))).toBe('1969-12-31T23:59:59.5Z');
    expect(epochNanos(c, new Date(1500))).toBe(1_500_000_000n);
    expect(() => epochNanos(c, '2024-03-01T00:00:00.1234567891Z')).toThrow(/more than 9 fractional digits/);
    expect(() => epochNanos(c, 'yesterday')).toThrow(/no ISO 8601 date-time/);
  });

  it('times of day: v4 and the v2 duration form', () => {
    const c = col('Edm.TimeOfDay');
    expect(timeText(timeNanos(c, '07:05:09.25'))).toBe('07:05:09.25');
    expect(timeText(timeNanos(c, 'PT13H20M'))).toBe('13:20:00');
    expect(() => timeNanos(c, 'PT25H')).toThrow(/not within a day/);
  });

  it('base64: what an encoder writes for every 1 and 2 bytes, in both alphabets, padded or not, decodes to them; any other last character is refused', () => {
    const c = col('Edm.Binary');
    const refused: string[] = [];
    for (let n = 0; n < 65536; n++) {
      for (const bytes of n < 256 ? [Buffer.from([n]), Buffer.from([n >> 4, n & 15, n])] : [Buffer.from([n >> 8, n & 255])]) {
        for (const text of [bytes.toString('base64'), bytes.toString('base64url')]) expect(Buffer.from(binaryBytes(c, text))).toEqual(bytes);
      }
    }
    // After "Q", a last character with any of its low 4 bits set (past the byte) is refused: all of both alphabets but A, Q, g, w.
    for (const ch of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_') {
      try {
        binaryBytes(c, `Q${ch}==`);
      } catch (error) {
        expect(error).toMatchObject({ code: 'value', message: `column X (Edm.Binary): "Q${ch}==" is no canonical base64 text: its last character has bits set past the last byte, which decoding would drop` });
        refused.push(ch);
      }
    }
    expect(refused.length).toBe(62);
    expect('AQgw'.split('').filter((ch) => refused.includes(ch))).toEqual([]);
  });

  it('dates: a date-time only at midnight in UTC (or without a zone) is taken as its day; another time or an offset is refused', () => {
    const c = col('Edm.Date');
    for (const text of ['2024-03-01', '2024-03-01T00:00:00Z', '2024-03-01T00:00Z', '2024-03-01T00:00:00.000Z', '2024-03-01T00:00:00', '2024-03-01T00:00:00+00:00', '2024-03-01Z']) {
      expect(dateText(c, text)).toBe('2024-03-01');
    }
    expect(dateText(c, new Date(Date.UTC(2024, 2, 1)))).toBe('2024-03-01');
    for (const [value, lost] of [['2024-03-01T00:00:01Z', 'time of day'], ['2024-03-01T00:00:00.000001', 'time of day'], ['2024-03-01T00:00:00+01:00', 'offset'],
      ['2024-03-01-05:00', 'offset'], [new Date(Date.UTC(2024, 2, 1, 10)), 'time of day']] as const) {
      expect(() => dateText(c, value)).toThrow(new RegExp(`is a date-time, not a date: its ${lost} would be lost`));
    }
    expect(() => dateText(c, '2024-02-30T00:00:00Z')).toThrow(/is no valid date/);
  });

  it('Date objects mean what their text means, outside the years 0001-9999 too (Parquet, SQLite, PostgreSQL): the same day or instant, or the same refusal; an invalid Date is refused', () => {
    const typed = (edmType: string, kind: Column['kind']): Column => ({ ...col(edmType), kind, precision: 3 });
    const day = typed('Edm.Date', 'date');
    const utc = (year: number, month: number, d: number, ms = 0): Date => {
      const x = new Date(ms);
      x.setUTCFullYear(year, month - 1, d);
      return x;
    };
    // What a conversion gives (an integer as its digits), or its error with the value as the error shows it replaced (a Date is shown as its ISO text).
    const outcome = (value: unknown, f: (v: unknown) => unknown): unknown => {
      try {
        const x = f(value);
        return typeof x === 'bigint' || typeof x === 'number' ? String(x) : x; // instantValue: a number when safe, else a bigint
      } catch (error) {
        return error instanceof SinkError ? `${error.code}: ${error.message.replace(shownValue(value), '<value>')}` : error;
      }
    };
    const dayPaths = [(v: unknown) => dateText(day, v), (v: unknown) => epochDays(dateText(day, v)), sqlValue('sqlite', day), sqlValue('postgres', day)];
    for (const [date, text] of [[utc(2024, 3, 1), '2024-03-01'], [utc(50, 3, 1), '0050-03-01'], [utc(9999, 12, 31), '9999-12-31'], [utc(10000, 1, 1), '10000-01-01'],
      [utc(275760, 9, 13), '275760-09-13'], [utc(0, 12, 31), '0000-12-31'], [utc(-1, 6, 15), '-0001-06-15'], [utc(-271821, 4, 20), '-271821-04-20']] as const) {
      expect(dayPaths.map((f) => outcome(date, f)), text).toEqual(dayPaths.map((f) => outcome(text, f)));
      expect(epochDays(dateText(day, date))).toBe(date.getTime() / 86_400_000);
    }
    expect(shownValue(utc(10000, 1, 1))).toBe('+010000-01-01T00:00:00.000Z');
    expect(() => sqlValue('sqlite', day)(utc(10000, 1, 1))).toThrow('column X (Edm.Date): +010000-01-01T00:00:00.000Z is outside the years 0001 to 9999');
    for (const at of [typed('Edm.DateTimeOffset', 'timestamp'), typed('Edm.DateTime', 'timestamp')]) {
      const instantPaths = [(v: unknown) => epochNanos(at, v), (v: unknown) => instantValue(at, v, 1, 1_000_000n), (v: unknown) => instantValue(at, v, 1000, 1000n),
        (v: unknown) => instantValue(at, v, 1_000_000, 1n), sqlValue('sqlite', at), sqlValue('postgres', at)];
      for (const [date, text] of [[utc(2024, 2, 29, 5), '2024-02-29T00:00:00.005Z'], [utc(9999, 12, 31, 86_399_999), '9999-12-31T23:59:59.999Z'],
        [utc(10000, 1, 1, 3_600_000), '10000-01-01T01:00:00Z'], [utc(0, 12, 31, 500), '0000-12-31T00:00:00.5Z'], [utc(-1, 1, 1), '-0001-01-01T00:00:00Z'],
        [new Date(8.64e15), '275760-09-13T00:00:00Z'], [new Date(-8.64e15), '-271821-04-20T00:00:00Z']] as const) {
        expect(instantPaths.map((f) => outcome(date, f)), `${at.edmType} ${text}`).toEqual(instantPaths.map((f) => outcome(text, f)));
      }
    }
    for (const [column, paths] of [[day, dayPaths], [typed('Edm.DateTimeOffset', 'timestamp'), [(v: unknown) => epochNanos(day, v), sqlValue('sqlite', typed('Edm.DateTimeOffset', 'timestamp'))]]] as const) {
      for (const f of paths) expect(outcome(new Date(NaN), f), column.edmType).toMatch(/^value: column X \(Edm\.\w+\): <value> is an invalid date$/);
    }
  });

  it('the Parquet writer\'s fast paths give what the exact functions give, or the same error', () => {
    const d = col('Edm.Decimal');
    const same = <T>(fast: () => T, exact: () => T): void => {
      let want: unknown;
      try { want = exact(); } catch (error) { want = error; }
      if (want instanceof Error) expect(fast).toThrow(want.message);
      else expect(BigInt(fast() as number | bigint)).toBe(BigInt(want as number | bigint));
    };
    for (const v of ['12.5', '-0.00', '.5', '1.', '-123456789012.34', '999999999999999', '1234567890123456', '12.345', '12.340', '1e2', '+3', ' 4', '', '-', '.', '1.2.3', 'x', 7]) {
      for (const scale of [0, 2, 4]) same(() => unscaledValue(d, v, scale), () => unscaledDecimal(d, v, scale));
    }
    for (const v of ['0', '-0', '123456789012345', '1234567890123456', '9223372036854775807', '-9223372036854775808', '12a', '', '-', 42, 2 ** 53 + 2, 1.5, 5n]) {
      same(() => int64Value(d, v), () => int64(d, v));
    }
    expect(() => int64Value(d, '9223372036854775808')).toThrow(/outside the 64-bit integer range/);
    for (const v of ['2024-03-01T10:00:00Z', '2024-03-01T10:00:00.123Z', '2024-02-30T00:00:00Z', '1969-12-31T23:59:59.999Z', '2024-03-01T10:00:00+02:00',
      '2024-03-01T10:00:00.1234567Z', '2024-03-01 10:00:00Z', '2024-13-01T00:00:00Z', '2024-03-01T10:00:0xZ', new Date(Date.UTC(2020, 1, 1, 0, 0, 0, 7)), 'soon']) {
      for (const [perMs, per] of [[1, 1_000_000n], [1000, 1000n], [1_000_000, 1n]] as const) {
        same(() => instantValue(d, v, perMs, per), () => inUnit(d, v, epochNanos(d, v), per));
      }
    }
    const bytes = new Uint8Array(20);
    guidBytes(d, '0B8F4A8E-1c2d-4e5f-8a9b-0c1d2e3f4a5b', bytes, 4);
    expect(Buffer.from(bytes.subarray(4)).toString('hex')).toBe(guidText(d, '0B8F4A8E-1c2d-4e5f-8a9b-0c1d2e3f4a5b').replace(/-/g, ''));
    for (const bad of ['0b8f4a8e1c2d4e5f8a9b0c1d2e3f4a5b', '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5', '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5ü', 42]) {
      expect(() => guidBytes(d, bad, bytes, 0)).toThrow(/is no GUID/);
    }
  });

  it('removed ids: single, composite, quoted and v2-typed keys; anything else is an error', () => {
    expect(keyOfRemovedId('https://h/svc/Orders(42)', ['ID'])).toEqual({ ID: '42' });
    expect(keyOfRemovedId("Items(OrderID=1,ItemNo='A,''B''')", ['OrderID', 'ItemNo'])).toEqual({ OrderID: '1', ItemNo: "A,'B'" });
    expect(keyOfRemovedId("X(guid'0a1b2c3d-0000-4000-8000-000000000001')", ['G'])).toEqual({ G: '0a1b2c3d-0000-4000-8000-000000000001' });
    expect(keyOfRemovedId('X(42L)', ['ID'])).toEqual({ ID: '42' });
    expect(() => keyOfRemovedId('Orders(42)', ['A', 'B'])).toThrow(/cannot read the key \(A, B\)/);
    expect(() => keyOfRemovedId("Items(OrderID=1)", ['OrderID', 'ItemNo'])).toThrow(SinkError);
  });

  it('calendar days: every day of years -400 to 2400 as a JavaScript Date counts it (whose setUTCFullYear takes years below 100 as they are); impossible days refused', () => {
    const date = new Date(0);
    const wrong: string[] = [];
    for (let year = -400; year <= 2400; year += year < 150 ? 1 : 7) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 1; day <= 31; day++) {
          date.setUTCFullYear(year, month - 1, day);
          const real = date.getUTCMonth() === month - 1;
          if (isCalendarDate(year, month, day) !== real || (real && civilDays(year, month, day) !== date.getTime() / 86_400_000)) wrong.push(`${year}-${month}-${day}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect([isCalendarDate(2024, 13, 1), isCalendarDate(2024, 0, 1), isCalendarDate(2024, 1, 0)]).toEqual([false, false, false]);
  });
});
