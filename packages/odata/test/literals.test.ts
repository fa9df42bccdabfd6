import { ConfigError } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import {
  binary, date, datetime, datetimeoffset, decimal, double, duration, guid, int64, odataV2, odataV4, single, str, timeOfDay, toLiteral,
} from '../src/index.js';

const v4 = (value: unknown, type?: string): string => odataV4.formatLiteral(toLiteral(value, type));
const v2 = (value: unknown, type?: string): string => odataV2.formatLiteral(toLiteral(value, type));

describe('literals', () => {
  it('doubles single quotes in strings, in both versions', () => {
    expect(v4("O'Brien")).toBe("'O''Brien'");
    expect(v2("''")).toBe("''''''");
  });

  it('writes JavaScript values by type', () => {
    expect(v4(42)).toBe('42');
    expect(v4(-1.5)).toBe('-1.5');
    expect(v4(true)).toBe('true');
    expect(v4(null)).toBe('null');
    expect(v4(12345678901234567890n)).toBe('12345678901234567890');
    expect(v2(12345678901234567890n)).toBe('12345678901234567890L');
    expect(v4(new Date(Date.UTC(2024, 0, 31, 10, 0, 0)))).toBe('2024-01-31T10:00:00.000Z');
    expect(v2(new Date(Date.UTC(2024, 0, 31, 10, 0, 0)))).toBe("datetime'2024-01-31T10:00:00.000'");
    expect(v2(new Date(Date.UTC(2024, 0, 31, 10, 0, 0)), 'Edm.DateTimeOffset')).toBe("datetimeoffset'2024-01-31T10:00:00.000Z'");
  });

  it('spells typed values per version (v2 prefixes and suffixes, v4 bare)', () => {
    const g = '0F8FAD5B-D9CB-469F-A165-70867728950E';
    expect(v4(guid(g))).toBe('0f8fad5b-d9cb-469f-a165-70867728950e');
    expect(v2(guid(g))).toBe("guid'0f8fad5b-d9cb-469f-a165-70867728950e'");
    expect(v4(int64('9007199254740993'))).toBe('9007199254740993');
    expect(v2(int64(5))).toBe('5L');
    expect(v4(decimal('12.34'))).toBe('12.34');
    expect(v2(decimal('12.34'))).toBe('12.34M');
    expect(v2(double(1.5))).toBe('1.5d');
    expect(v2(single('2.5'))).toBe('2.5f');
    expect(v2(datetime('2024-01-31T10:00:00Z'))).toBe("datetime'2024-01-31T10:00:00'");
    expect(v4(datetime('2024-01-31T10:00:00'))).toBe('2024-01-31T10:00:00Z');
    expect(v4(datetimeoffset('2024-01-31T10:00:00+02:00'))).toBe('2024-01-31T10:00:00+02:00');
    expect(v4(date('2024-01-31'))).toBe('2024-01-31');
    expect(v2(date('2024-01-31'))).toBe("datetime'2024-01-31T00:00'");
    expect(v4(timeOfDay('13:45:10'))).toBe('13:45:10');
    expect(v2(timeOfDay('13:45:10'))).toBe("time'PT13H45M10S'");
    expect(v4(duration('P1DT2H'))).toBe("duration'P1DT2H'");
    expect(v2(duration('PT2H'))).toBe("time'PT2H'");
    expect(v4(binary(Uint8Array.of(1, 255)))).toBe("binary'Af8'");
    expect(v2(binary(Uint8Array.of(1, 255)))).toBe("X'01FF'");
    expect(v4(str('42'))).toBe("'42'");
  });

  it('uses the metadata type of the property when known', () => {
    expect(v2('0f8fad5b-d9cb-469f-a165-70867728950e', 'Edm.Guid')).toBe("guid'0f8fad5b-d9cb-469f-a165-70867728950e'");
    expect(v2('9007199254740993', 'Edm.Int64')).toBe('9007199254740993L');
    expect(v2(10, 'Edm.Decimal')).toBe('10M');
    expect(v2('2024-01-31T10:00:00', 'Edm.DateTime')).toBe("datetime'2024-01-31T10:00:00'");
    expect(v4('7', 'Edm.Int32')).toBe('7');
    expect(v4(7, 'Edm.String')).toBe('7');
  });

  it('rejects values that would not be the literal they claim to be', () => {
    const attempts: Array<() => unknown> = [
      () => v4(guid("x' or 1 eq 1 or 'a")),
      () => v4(int64('1 or true')),
      () => v4(decimal('1e5; drop')),
      () => v4('1) or (1 eq 1', 'Edm.Int32'),
      () => v4(datetime('yesterday')),
      () => v4(new Date(NaN)),
      () => v4(undefined),
      () => v4({ a: 1 }),
      () => v4(duration("P1D' or '")),
      () => v4(Symbol('x')),
    ];
    for (const attempt of attempts) expect(attempt).toThrow(ConfigError);
  });

  it('writes non-finite doubles as NaN / INF / -INF', () => {
    expect(v4(NaN)).toBe('NaN');
    expect(v4(Infinity)).toBe('INF');
    expect(v4(-Infinity)).toBe('-INF');
  });
});
