// A Double's or Single's special values and numbers in text, both directions: odataFloatValue (the client's
// decoding and the sink's Double columns read through it) and odataFloatText / odataJsonNumbers (writing).
import { describe, expect, it } from 'vitest';
import { odataFloatText, odataFloatValue, odataJsonNumbers } from '../src/index.js';

describe('odataFloatValue', () => {
  it('reads "INF", "-INF", "NaN" and decimal numbers with an exponent', () => {
    expect(odataFloatValue('INF')).toBe(Infinity);
    expect(odataFloatValue('-INF')).toBe(-Infinity);
    expect(odataFloatValue('NaN')).toBeNaN();
    expect(['1.5E+2', '-1.25e-1', '+7', '.5', '1.', '0', '-0'].map(odataFloatValue)).toEqual([150, -0.125, 7, 0.5, 1, 0, -0]);
  });

  it('reads a number beyond a Double\'s range as IEEE 754 rounds it, as a JSON number of the same text', () => {
    expect(odataFloatValue('1e400')).toBe(Infinity);
    expect(odataFloatValue('-1e400')).toBe(-Infinity);
    expect(odataFloatValue('1e400')).toBe(JSON.parse('1e400'));
    expect(odataFloatValue('1e-400')).toBe(0);
  });

  it('gives undefined for any other text: spaces, empty, hex, JavaScript\'s spellings, other cases', () => {
    for (const text of ['  1 ', ' 1', '1 ', '', ' ', '0x10', '0b1', 'Infinity', '-Infinity', 'inf', 'INFINITY', '+INF', 'nan', '1e', '1.2.3', '1_000', 'constructor']) {
      expect(odataFloatValue(text), JSON.stringify(text)).toBeUndefined();
    }
  });

  it('writes a finite number with the digits String() gives it, -0 as 0', () => {
    const numbers = [0, -0, 1, -1, 0.1 + 0.2, 1e21, -1e21, 1e-7, 1.5e-7, 123.456, 2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 5e-324, Number.MAX_VALUE, 1 / 3, 1e300, 2 ** 31, -(2 ** 31) - 1];
    for (const n of numbers) expect(odataFloatText(n), String(n)).toBe(String(n));
    expect(odataFloatText(-0)).toBe('0');
    expect(odataFloatText(2 ** 53 + 1)).toBe('9007199254740992');
    expect([odataFloatText(Infinity), odataFloatText(-Infinity), odataFloatText(NaN)]).toEqual(['INF', '-INF', 'NaN']);
  });

  it('reads back what odataFloatText and odataJsonNumbers write', () => {
    for (const n of [Infinity, -Infinity, 1.5e300, -0.125, 5e-324, Number.MAX_VALUE]) expect(odataFloatValue(odataFloatText(n))).toBe(n);
    expect(odataFloatValue(odataFloatText(NaN))).toBeNaN();
    const written = JSON.parse(JSON.stringify({ a: -Infinity, b: NaN }, odataJsonNumbers)) as Record<string, string>;
    expect([odataFloatValue(written.a!), odataFloatValue(written.b!)]).toEqual([-Infinity, NaN]);
  });
});
