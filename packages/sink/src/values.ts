// Decoded OData values to exact forms: decimals as text or unscaled bigints, Int64 as bigint (dates and times:
// temporal.ts). Nothing goes through a float; a value that its column cannot hold exactly is an error naming
// the column.
import { odataFloatValue, odataJsonNumbers } from '@sluice/odata';
import { SinkError } from './errors.js';
import type { Column } from './columns.js';

const DECIMAL = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/;

/**
 * A value as an error shows it: text quoted and cut at 60 characters (a value is data, not a secret, but may be long);
 * a `Date` as its ISO text in UTC (`+010000-01-01T00:00:00.000Z`), not in the machine's zone.
 */
export function shownValue(value: unknown): string {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 60))}...` : JSON.stringify(value);
  if (value instanceof Uint8Array) return `${value.length} bytes`;
  const text = typeof value === 'object' && value !== null ? (JSON.stringify(value, odataJsonNumbers) ?? String(value)) : String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

/**
 * A number as text, the digits `String` gives, without V8's number-to-string cache: `String(v)` leaves each string it
 * makes in that cache, which keeps it alive for many pages, long enough to be promoted to the old generation and to
 * stay there as garbage until a full collection (bench/RESULTS.md, issue 25). A safe integer goes through
 * `toFixed(0)`, another finite number through `JSON.stringify` (both spell a number as `String` does).
 */
export const numberText = (v: number): string => (Number.isSafeInteger(v) ? v.toFixed(0) : Number.isFinite(v) ? JSON.stringify(v) : String(v));

/** Which record a value error is about: `entity set Items, the record with key ID=1` (key values cut short). */
export function recordOf(entitySet: string | undefined, keys: readonly Column[], record: Readonly<Record<string, unknown>>): string {
  const key = keys.map((k) => `${k.name}=${shownValue(record[k.name])}`).join(', ');
  return [entitySet === undefined ? '' : `entity set ${entitySet}`, key === '' ? '' : `the record with key ${key}`].filter(Boolean).join(', ') || 'a record';
}

/** The `value` SinkError of a value its column cannot hold: the column, its EDM type, the value and why. */
export function bad(column: Column, value: unknown, why: string): SinkError {
  return new SinkError(`column ${column.name} (${column.edmType}): ${shownValue(value)} ${why}`, 'value');
}

/** A decimal (string, number or bigint, exponent allowed) as plain text: `-12.50`, `0.001`. */
export function decimalText(column: Column, value: unknown): string {
  if (typeof value === 'bigint') return value.toString();
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : typeof value === 'string' ? value.trim() : '';
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw bad(column, value, 'is no decimal number');
  if (m[4] !== undefined && !(Math.abs(Number(m[4])) <= 10_000)) throw bad(column, value, 'has an exponent beyond 10000 (too long to write out)');
  let digits = (m[2] ?? '') + (m[3] ?? '');
  let point = (m[2] ?? '').length + Number(m[4] ?? 0);
  if (point < 0) { digits = '0'.repeat(-point) + digits; point = 0; }
  if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const int = digits.slice(0, point).replace(/^0+(?=\d)/, '') || '0';
  const frac = digits.slice(point);
  const sign = m[1] === '-' && /[1-9]/.test(digits) ? '-' : '';
  return frac === '' ? `${sign}${int}` : `${sign}${int}.${frac}`;
}

/** The unscaled integer of a decimal at `scale` (`12.5` at scale 2 is `1250n`); extra non-zero digits are an error. */
export function unscaledDecimal(column: Column, value: unknown, scale: number): bigint {
  const text = decimalText(column, value);
  const [int, frac = ''] = text.replace('-', '').split('.');
  if (frac.length > scale && /[1-9]/.test(frac.slice(scale))) throw bad(column, value, `has more than ${scale} decimals`);
  const unscaled = BigInt(int! + frac.slice(0, scale).padEnd(scale, '0'));
  return text.startsWith('-') ? -unscaled : unscaled;
}

/** An Int64 as a bigint (from a string, a safe integer or a bigint). */
export function int64(column: Column, value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value);
  if (typeof value === 'string' && /^[-+]?\d+$/.test(value.trim())) return BigInt(value.trim());
  throw bad(column, value, typeof value === 'number' ? 'is no exact integer (Int64 above 2^53 must arrive as text: IEEE754Compatible)' : 'is no integer');
}

/** A 32-bit (or smaller) integer as a number: a number that is an integer, or decimal integer text (not `""`, `0x1F`, `1e3`). */
export function int32(column: Column, value: unknown): number {
  const n = typeof value === 'string' ? (/^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : NaN) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw bad(column, value, 'is no integer');
  return n;
}

/** Integer range of an `int` column by its bits and sign (Byte 0 to 255, SByte -128 to 127, Int16, Int32). */
export function intRange(column: Column): [number, number] {
  const bits = column.bits ?? 32;
  return column.signed === false ? [0, 2 ** bits - 1] : [-(2 ** (bits - 1)), 2 ** (bits - 1) - 1];
}

/** What an out-of-range integer is told. */
export const intRangeText = (column: Column, [lo, hi]: [number, number]): string => `is outside the range of ${column.edmType} (${lo} to ${hi})`;

/** An integer of an `int` column, checked against its EDM type's range ({@link intRange}). */
export function intValue(column: Column): (value: unknown) => number {
  const range = intRange(column);
  const [lo, hi] = range;
  return (value) => {
    const n = typeof value === 'number' && Number.isInteger(value) ? value : int32(column, value);
    if (!(n >= lo && n <= hi)) throw bad(column, value, intRangeText(column, range));
    return n;
  };
}

/** A Boolean: `true`/`false`, their text, or 1/0; anything else (`2`, `""`, `"yes"`) is a `value` SinkError, not a guess. */
export function booleanValue(column: Column, value: unknown): boolean {
  if (value === true || value === false) return value;
  if (value === 'true' || value === 1) return true;
  if (value === 'false' || value === 0) return false;
  throw bad(column, value, 'is no Boolean');
}

/**
 * A Double or Single: numbers, and texts as OData JSON sends them (`INF`, `-INF`, `NaN`, `1.5E+2`: the
 * client's own reading, odataFloatValue); any other value is a `value` SinkError naming the column.
 */
export function float(column: Column, value: unknown): number {
  if (typeof value === 'number') return value;
  const n = typeof value === 'string' ? odataFloatValue(value) : undefined;
  if (n === undefined) throw bad(column, value, 'is no number');
  return n;
}

/** The largest finite float32 (3.4028234663852886e38). */
export const SINGLE_MAX = 3.4028234663852886e38;

/** What a finite value beyond float32 is told (it would become an infinity). */
export const SINGLE_RANGE = `is outside the range of Edm.Single (a finite float32, at most ${SINGLE_MAX} in magnitude): it would be stored as an infinity`;

/**
 * A Single ({@link float}): rounding to float32 is the type, but a finite value that float32 rounds to an
 * infinity is refused ({@link SINGLE_RANGE}).
 */
export function single(column: Column, value: unknown): number {
  const n = typeof value === 'number' ? value : float(column, value);
  if (n - n === 0 && Math.fround(n) - Math.fround(n) !== 0) throw bad(column, value, SINGLE_RANGE);
  return n;
}

/** The 6 bits of each base64 and base64url character, by its code (-1: none). */
const SEXTETS = new Int8Array(128).fill(-1);
[...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'].forEach((ch, i) => { SEXTETS[ch.charCodeAt(0)] = i; });
SEXTETS[45] = 62; // '-'
SEXTETS[95] = 63; // '_'

/**
 * Bytes of a base64 or base64url text (v4 sends base64url, v2 base64). A text whose last character has bits set past
 * the last byte (`"QR=="`: R's low 4 bits) is refused: decoding would drop them, and no encoder writes them.
 */
export function binaryBytes(column: Column, value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  // Padded, a text is whole groups of 4; unpadded, its last group has 2 or 3 characters (1 holds no byte).
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(value) || (value.endsWith('=') ? value.length % 4 !== 0 : value.length % 4 === 1)) {
    throw bad(column, value, 'is no base64 text');
  }
  const data = value.length - (value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0);
  // The last group's 2 characters hold 1 byte (4 bits spare), its 3 characters 2 bytes (2 bits spare).
  const spare = data % 4 === 2 ? 0x0f : data % 4 === 3 ? 0x03 : 0;
  if (spare !== 0 && (SEXTETS[value.charCodeAt(data - 1)]! & spare) !== 0) {
    throw bad(column, value, 'is no canonical base64 text: its last character has bits set past the last byte, which decoding would drop');
  }
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** A GUID in its canonical lower-case form. */
export function guidText(column: Column, value: unknown): string {
  if (typeof value !== 'string' || !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value)) throw bad(column, value, 'is no GUID');
  return value.toLowerCase();
}

/** A complex or collection value as JSON text; a Double's `Infinity`, `-Infinity` or `NaN` inside as `"INF"`, `"-INF"`, `"NaN"` (not null). */
export function jsonText(value: unknown): string {
  return JSON.stringify(value, odataJsonNumbers);
}

/** A text column's value: strings as they are, other scalars as text, objects as JSON ({@link jsonText}). */
export function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'object' ? jsonText(value) : String(value);
}

/** Whether a text is well-formed UTF-16 (no lone surrogate): V8 answers at once for a one-byte string. */
export const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed();

/** What a text with a lone surrogate is told: UTF-8 has no bytes for it, so every target would store U+FFFD. */
export const LONE_SURROGATE = 'holds a lone UTF-16 surrogate, which UTF-8 cannot encode (it would be stored as U+FFFD)';

/** A lone surrogate's escape in JSON text (after an even number of backslashes: not an escaped `\`). */
const LONE_ESCAPE = /(?<!\\)(?:\\\\)*\\ud[89a-f]/i;

/**
 * A JSON column's text ({@link jsonText}), refused when a string in it has a lone surrogate: JSON.stringify writes
 * it as an escape (`\ud800`) that readers refuse (DuckDB's JSON type, PostgreSQL's jsonb), failing the whole file.
 */
export function jsonColumnText(column: Column, value: unknown): string {
  const json = jsonText(value);
  if (json.includes('\\u') && LONE_ESCAPE.test(json)) throw bad(column, value, 'holds a string with a lone UTF-16 surrogate, whose JSON escape readers refuse (DuckDB, PostgreSQL\'s jsonb)');
  return json;
}

/** A text column's value ({@link text}), refused when it holds a lone surrogate ({@link LONE_SURROGATE}). */
export function wellFormedText(column: Column, value: unknown): string {
  const t = text(value);
  if (!isWellFormed(t)) throw bad(column, value, LONE_SURROGATE);
  return t;
}

// Fast paths of the Parquet writer: the common shapes of a value parsed without a regex or a bigint, anything
// else handed to the exact functions above (so a value means the same on either path).

/** An Int64 as a safe-integer number when it is one, else as a bigint within the signed 64-bit range. */
export function int64Value(column: Column, value: unknown): number | bigint {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  if (typeof value === 'string' && value.length > 0 && value.length <= 15) {
    const n = digitsValue(value, 0, value.length);
    if (n !== undefined) return n;
  }
  return inInt64(column, value, int64(column, value));
}

/** A bigint checked against the signed 64-bit range. */
export function inInt64(column: Column, value: unknown, n: bigint): bigint {
  if (BigInt.asIntN(64, n) !== n) throw bad(column, value, 'is outside the 64-bit integer range');
  return n;
}

/** The integer of `text[from, to)` (an optional `-`, then at most 15 digits), or undefined. */
function digitsValue(text: string, from: number, to: number): number | undefined {
  const negative = text.charCodeAt(from) === 45;
  let i = negative ? from + 1 : from;
  if (i === to) return undefined;
  let n = 0;
  for (; i < to; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
  }
  return negative && n !== 0 ? -n : n;
}

const POW10 = Array.from({ length: 16 }, (_, i) => 10 ** i);

/**
 * The unscaled integer of a decimal at `scale`, as {@link unscaledDecimal} gives it: a number when the text is
 * plain (`-123.45`: at most 15 digits, no more decimals than `scale`, no exponent), else a bigint.
 */
export function unscaledValue(column: Column, value: unknown, scale: number): number | bigint {
  if (typeof value === 'string' && scale <= 15) {
    const n = plainUnscaled(value, scale);
    if (n !== undefined) return n;
  }
  return unscaledDecimal(column, value, scale);
}

function plainUnscaled(text: string, scale: number): number | undefined {
  const negative = text.charCodeAt(0) === 45;
  let n = 0;
  let digits = 0;
  let frac = -1;
  for (let i = negative ? 1 : 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 46) {
      if (frac >= 0) return undefined;
      frac = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9) return undefined;
    n = n * 10 + d;
    digits++;
    if (frac >= 0) frac++;
  }
  if (digits === 0 || digits > 15 || frac > scale) return undefined;
  const scaled = n * POW10[scale - Math.max(frac, 0)]!;
  if (!Number.isSafeInteger(scaled)) return undefined;
  return negative && scaled !== 0 ? -scaled : scaled;
}

/** Writes a GUID's 16 bytes (as its canonical text reads) at `at`. */
export function guidBytes(column: Column, value: unknown, into: Uint8Array, at: number): void {
  if (typeof value === 'string' && value.length === 36 && value.charCodeAt(8) === 45 && value.charCodeAt(13) === 45 &&
    value.charCodeAt(18) === 45 && value.charCodeAt(23) === 45) {
    let j = at;
    for (let i = 0; i < 36; i += 2) {
      if (i === 8 || i === 13 || i === 18 || i === 23) i++;
      const hi = HEX[value.charCodeAt(i)] ?? -1;
      const lo = HEX[value.charCodeAt(i + 1)] ?? -1;
      if (hi < 0 || lo < 0) break;
      into[j++] = (hi << 4) | lo;
    }
    if (j === at + 16) return;
  }
  throw bad(column, value, 'is no GUID');
}
const HEX = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) HEX[48 + i] = i;
for (let i = 0; i < 6; i++) HEX[65 + i] = HEX[97 + i] = 10 + i;
