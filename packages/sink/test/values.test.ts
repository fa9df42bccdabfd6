// Exact value conversion and key reading, case by case.
import { describe, expect, it } from 'vitest';
import { keyOfRemovedId, SinkError, type Column } from '../src/index.js';
import { decimalText, epochNanos, int64, isoUTC, timeNanos, timeText, unscaledDecimal } from '../src/values.js';

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

  it('removed ids: single, composite, quoted and v2-typed keys; anything else is an error', () => {
    expect(keyOfRemovedId('https://h/svc/Orders(42)', ['ID'])).toEqual({ ID: '42' });
    expect(keyOfRemovedId("Items(OrderID=1,ItemNo='A,''B''')", ['OrderID', 'ItemNo'])).toEqual({ OrderID: '1', ItemNo: "A,'B'" });
    expect(keyOfRemovedId("X(guid'0a1b2c3d-0000-4000-8000-000000000001')", ['G'])).toEqual({ G: '0a1b2c3d-0000-4000-8000-000000000001' });
    expect(keyOfRemovedId('X(42L)', ['ID'])).toEqual({ ID: '42' });
    expect(() => keyOfRemovedId('Orders(42)', ['A', 'B'])).toThrow(/cannot read the key \(A, B\)/);
    expect(() => keyOfRemovedId("Items(OrderID=1)", ['OrderID', 'ItemNo'])).toThrow(SinkError);
  });
});
