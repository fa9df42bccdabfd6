// csvCell's number cells: the digits JavaScript writes for the number (as String() would), OData's spellings of
// a Double's special values, and no quoting or formula guard for a negative number.
import { describe, expect, it } from 'vitest';
import { csvCell, csvLine } from '../src/formats.js';

describe('csvCell numbers', () => {
  it('writes each number as String() would, -0 as 0, big and small ones with their exponent', () => {
    const numbers = [0, -0, 42, -7, 0.1 + 0.2, 1e21, -1e21, 1e-7, 2.5e-7, 2 ** 53, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 5e-324, Number.MAX_VALUE, -123.456];
    for (const n of numbers) expect(csvCell(n, true), String(n)).toBe(String(n));
    expect([csvCell(-0), csvCell(1e21), csvCell(1e-7), csvCell(0.1 + 0.2), csvCell(2 ** 53 + 1)]).toEqual(['0', '1e+21', '1e-7', '0.30000000000000004', '9007199254740992']);
  });

  it('writes a Double\'s special values as OData JSON spells them', () => {
    expect(csvLine([Infinity, -Infinity, NaN, -1.5], false)).toBe('INF,-INF,NaN,-1.5\r\n');
  });
});
