// One row group's values of a Parquet column, converted as they are added straight into typed arrays or
// PLAIN-encoded bytes (no object per value), with the chunk's statistics (min, max, nulls) kept on the way.
// The values of `parquetElement` (parquet.ts) and the checks of values.ts: nothing goes through a float.
import type { Column } from './columns.js';
import { SinkError } from './errors.js';
import {
  bad, binaryBytes, booleanValue, decimalText, float, guidBytes, inInt64, int32, int64Value, intRange, intRangeText, isWellFormed, jsonColumnText, LONE_SURROGATE, SINGLE_RANGE, text, unscaledValue,
} from './values.js';
import { dateText, epochDays, inUnit, instantValue, timeNanos } from './temporal.js';

/** Statistics of a column chunk, in the forms hyparquet-writer's footer writer takes (bigints for INT64 and decimals). */
export interface ChunkStatistics {
  min_value?: unknown;
  max_value?: unknown;
  null_count: bigint;
  nan_count?: bigint;
}

/** A column a row group at a time: `add` each row's value, then `plain()`/`statistics()`, then `reset()`. */
export abstract class ColumnBuffer {
  /** Definition levels of a nullable column, one per row: 1 for a value, 0 for null. */
  readonly defs: Uint8Array | undefined;
  rows = 0;
  nulls = 0;

  constructor(readonly column: Column, capacity: number) {
    this.defs = column.nullable ? new Uint8Array(capacity) : undefined;
  }

  add(value: unknown): void {
    if (value === null || value === undefined) {
      if (this.defs === undefined) throw new SinkError(`column ${this.column.name} is not nullable, but a record has no value for it`, 'value');
      this.defs[this.rows++] = 0;
      this.nulls++;
      return;
    }
    this.put(value);
    if (this.defs !== undefined) this.defs[this.rows] = 1;
    this.rows++;
  }

  /** The PLAIN encoding of the non-null values added since the last reset (may be a view of the buffer's memory). */
  abstract plain(): Uint8Array;
  protected abstract put(value: unknown): void;
  protected abstract bounds(): { min_value?: unknown; max_value?: unknown; nan_count?: bigint };
  protected abstract clear(): void;

  statistics(): ChunkStatistics {
    return { ...this.bounds(), null_count: BigInt(this.nulls) };
  }

  reset(): void {
    this.rows = 0;
    this.nulls = 0;
    this.clear();
  }
}

const bytesOf = (a: Int32Array | Float64Array | Float32Array, count: number): Uint8Array => new Uint8Array(a.buffer, a.byteOffset, count * a.BYTES_PER_ELEMENT);
const outOfRange = bad;

/** INT32: integers, dates (days since 1970) and decimals of up to 9 digits (unscaled). */
class Int32Buffer extends ColumnBuffer {
  private readonly values: Int32Array;
  private n = 0;
  private min = Infinity;
  private max = -Infinity;

  constructor(column: Column, capacity: number, private readonly convert: (v: unknown) => number, private readonly lo: number, private readonly hi: number,
    private readonly what: string, private readonly decimal: boolean) {
    super(column, capacity);
    this.values = new Int32Array(capacity);
  }

  protected put(value: unknown): void {
    const x = this.convert(value);
    if (!(x >= this.lo && x <= this.hi)) throw outOfRange(this.column, value, this.what);
    this.values[this.n++] = x;
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
  }

  plain(): Uint8Array { return bytesOf(this.values, this.n); }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    if (this.n === 0) return {};
    return this.decimal ? { min_value: BigInt(this.min), max_value: BigInt(this.max) } : { min_value: this.min, max_value: this.max };
  }
  protected clear(): void { this.n = 0; this.min = Infinity; this.max = -Infinity; }
}

const TWO_32 = 4294967296;

/** INT64: Int64, decimals of 10 to 18 digits (unscaled), timestamps and times; safe integers skip the bigint. */
class Int64Buffer extends ColumnBuffer {
  private readonly words: Int32Array;
  private n = 0;
  private min: number | bigint = Infinity;
  private max: number | bigint = -Infinity;

  constructor(column: Column, capacity: number, private readonly convert: (v: unknown) => number | bigint, private readonly limit?: bigint | undefined) {
    super(column, capacity);
    this.words = new Int32Array(capacity * 2);
  }

  protected put(value: unknown): void {
    const x = this.convert(value);
    if (this.limit !== undefined && !(x < this.limit && x > -this.limit)) throw outOfRange(this.column, value, `has more than ${this.column.precision} digits`);
    const i = 2 * this.n++;
    if (typeof x === 'number') {
      this.words[i] = x >>> 0;
      this.words[i + 1] = Math.floor(x / TWO_32);
    } else {
      this.words[i] = Number(BigInt.asUintN(32, x));
      this.words[i + 1] = Number(BigInt.asIntN(32, x >> 32n));
    }
    if (x < this.min) this.min = x;
    if (x > this.max) this.max = x;
  }

  plain(): Uint8Array { return bytesOf(this.words, 2 * this.n); }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    return this.n === 0 ? {} : { min_value: BigInt(this.min), max_value: BigInt(this.max) };
  }
  protected clear(): void { this.n = 0; this.min = Infinity; this.max = -Infinity; }
}

/** DOUBLE and FLOAT; NaN is counted, not a bound; a zero bound is -0 as min and +0 as max (the format's rule). */
class FloatBuffer extends ColumnBuffer {
  private readonly values: Float64Array | Float32Array;
  private n = 0;
  private nans = 0;
  private min = Infinity;
  private max = -Infinity;

  constructor(column: Column, capacity: number, single: boolean) {
    super(column, capacity);
    this.values = single ? new Float32Array(capacity) : new Float64Array(capacity);
  }

  protected put(value: unknown): void {
    const x = typeof value === 'number' ? value : float(this.column, value);
    const i = this.n;
    this.values[i] = x;
    const stored = this.values[i]!;
    // A finite value a FLOAT column would hold as an infinity (1e39): refused, not changed.
    if (stored - stored !== 0 && x - x === 0) throw outOfRange(this.column, value, SINGLE_RANGE);
    this.n++;
    if (stored !== stored) this.nans++;
    else {
      if (stored < this.min) this.min = stored;
      if (stored > this.max) this.max = stored;
    }
  }

  plain(): Uint8Array { return bytesOf(this.values, this.n); }
  protected bounds(): { min_value?: unknown; max_value?: unknown; nan_count: bigint } {
    const nan_count = BigInt(this.nans);
    if (this.n === this.nans) return { nan_count };
    return { min_value: this.min === 0 ? -0 : this.min, max_value: this.max === 0 ? 0 : this.max, nan_count };
  }
  protected clear(): void { this.n = 0; this.nans = 0; this.min = Infinity; this.max = -Infinity; }
}

/** BOOLEAN, bit-packed (PLAIN) when encoded. */
class BooleanBuffer extends ColumnBuffer {
  private readonly values: Uint8Array;
  private n = 0;
  private seen = 0; // bit 1: false seen, bit 2: true seen

  constructor(column: Column, capacity: number) {
    super(column, capacity);
    this.values = new Uint8Array(capacity);
  }

  protected put(value: unknown): void {
    const b = typeof value === 'boolean' ? value : booleanValue(this.column, value);
    this.values[this.n++] = b ? 1 : 0;
    this.seen |= b ? 2 : 1;
  }

  plain(): Uint8Array {
    const out = new Uint8Array(Math.ceil(this.n / 8));
    for (let i = 0; i < this.n; i++) out[i >> 3]! |= this.values[i]! << (i & 7);
    return out;
  }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    return this.seen === 0 ? {} : { min_value: (this.seen & 1) === 0, max_value: (this.seen & 2) !== 0 };
  }
  protected clear(): void { this.n = 0; this.seen = 0; }
}

/** Unsigned byte order of two byte ranges (the order of BYTE_ARRAY, UUID and UTF-8 bounds). */
function compareBytes(a: Uint8Array, ai: number, an: number, b: Uint8Array, bi: number, bn: number): number {
  const n = Math.min(an, bn);
  for (let k = 0; k < n; k++) {
    const d = a[ai + k]! - b[bi + k]!;
    if (d !== 0) return d;
  }
  return an - bn;
}

/** UUID: 16 bytes per value; bounds in unsigned byte order. */
class UuidBuffer extends ColumnBuffer {
  private readonly bytes: Uint8Array;
  private n = 0;
  private readonly minMax = new Uint8Array(32);

  constructor(column: Column, capacity: number) {
    super(column, capacity);
    this.bytes = new Uint8Array(capacity * 16);
  }

  protected put(value: unknown): void {
    const at = 16 * this.n;
    guidBytes(this.column, value, this.bytes, at);
    if (this.n++ === 0 || compareBytes(this.bytes, at, 16, this.minMax, 0, 16) < 0) this.minMax.set(this.bytes.subarray(at, at + 16), 0);
    if (this.n === 1 || compareBytes(this.bytes, at, 16, this.minMax, 16, 16) > 0) this.minMax.set(this.bytes.subarray(at, at + 16), 16);
  }

  plain(): Uint8Array { return this.bytes.subarray(0, 16 * this.n); }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    return this.n === 0 ? {} : { min_value: this.minMax.slice(0, 16), max_value: this.minMax.slice(16) };
  }
  protected clear(): void { this.n = 0; }
}

/** DECIMAL of more than 18 digits: big-endian two's complement in a FIXED_LEN_BYTE_ARRAY; bounds as unscaled bigints. */
class WideDecimalBuffer extends ColumnBuffer {
  private readonly bytes: Uint8Array;
  private n = 0;
  private min: bigint | undefined;
  private max: bigint | undefined;
  private readonly limit: bigint;

  constructor(column: Column, capacity: number, private readonly width: number, private readonly scale: number) {
    super(column, capacity);
    this.bytes = new Uint8Array(capacity * width);
    this.limit = 10n ** BigInt(column.precision!);
  }

  protected put(value: unknown): void {
    const x = BigInt(unscaledValue(this.column, value, this.scale));
    if (!(x < this.limit && x > -this.limit)) throw outOfRange(this.column, value, `has more than ${this.column.precision} digits`);
    let v = BigInt.asUintN(this.width * 8, x);
    for (let k = this.width * (this.n + 1) - 1; k >= this.width * this.n; k--) {
      this.bytes[k] = Number(v & 0xffn);
      v >>= 8n;
    }
    this.n++;
    if (this.min === undefined || x < this.min) this.min = x;
    if (this.max === undefined || x > this.max) this.max = x;
  }

  plain(): Uint8Array { return this.bytes.subarray(0, this.width * this.n); }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    return this.min === undefined ? {} : { min_value: this.min, max_value: this.max };
  }
  protected clear(): void { this.n = 0; this.min = undefined; this.max = undefined; }
}

/** Code point order of two strings (the order of their UTF-8 bytes), for strings that are not both ASCII. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === n) return a.length - b.length;
  const x = a.codePointAt(i > 0 && isHighSurrogate(a.charCodeAt(i - 1)) ? i - 1 : i)!;
  const y = b.codePointAt(i > 0 && isHighSurrogate(b.charCodeAt(i - 1)) ? i - 1 : i)!;
  return x - y;
}
const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;

/** BYTE_ARRAY: text (UTF-8), JSON text and binary, PLAIN (4-byte length, then the bytes) as they arrive. */
class ByteArrayBuffer extends ColumnBuffer {
  private bytes = Buffer.allocUnsafe(1 << 16);
  private at = 0;
  private min: string | Uint8Array | undefined;
  private max: string | Uint8Array | undefined;
  private minAscii = false;
  private maxAscii = false;

  constructor(column: Column, capacity: number, private readonly convert: (v: unknown) => string | Uint8Array) {
    super(column, capacity);
  }

  private room(n: number): void {
    if (this.at + n <= this.bytes.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.at + n));
    this.bytes.copy(grown, 0, 0, this.at);
    this.bytes = grown;
  }

  protected put(value: unknown): void {
    const v = this.convert(value);
    if (typeof v === 'string') {
      this.room(4 + 3 * v.length);
      const length = this.bytes.write(v, this.at + 4, 'utf8');
      const ascii = length === v.length;
      // UTF-8 has no bytes for a lone surrogate: Buffer.write would have put U+FFFD in its place.
      if (!ascii && !isWellFormed(v)) throw bad(this.column, value, LONE_SURROGATE);
      this.bytes.writeUInt32LE(length, this.at);
      this.at += 4 + length;
      const min = this.min as string | undefined;
      const max = this.max as string | undefined;
      if (min === undefined || ((ascii || this.minAscii) ? v < min : compareCodePoints(v, min) < 0)) { this.min = v; this.minAscii = ascii; }
      if (max === undefined || ((ascii || this.maxAscii) ? v > max : compareCodePoints(v, max) > 0)) { this.max = v; this.maxAscii = ascii; }
    } else {
      this.room(4 + v.length);
      this.bytes.writeUInt32LE(v.length, this.at);
      this.bytes.set(v, this.at + 4);
      this.at += 4 + v.length;
      const min = this.min as Uint8Array | undefined;
      const max = this.max as Uint8Array | undefined;
      if (min === undefined || compareBytes(v, 0, v.length, min, 0, min.length) < 0) this.min = v.slice();
      if (max === undefined || compareBytes(v, 0, v.length, max, 0, max.length) > 0) this.max = v.slice();
    }
  }

  plain(): Uint8Array { return this.bytes.subarray(0, this.at); }
  protected bounds(): { min_value?: unknown; max_value?: unknown } {
    return this.min === undefined ? {} : { min_value: this.min, max_value: this.max };
  }
  protected clear(): void {
    this.at = 0;
    this.min = undefined;
    this.max = undefined;
    if (this.bytes.length > 1 << 24) this.bytes = Buffer.allocUnsafe(1 << 16);
  }
}

/** The buffer of a column, for row groups of up to `capacity` rows. */
export function columnBuffer(column: Column, capacity: number, element: Readonly<Record<string, unknown>>): ColumnBuffer {
  const c = column;
  switch (c.kind) {
    case 'boolean': return new BooleanBuffer(c, capacity);
    case 'int': {
      const range = intRange(c);
      return new Int32Buffer(c, capacity, (v) => (typeof v === 'number' && Number.isInteger(v) ? v : int32(c, v)), range[0], range[1], intRangeText(c, range), false);
    }
    case 'int64': return new Int64Buffer(c, capacity, (v) => int64Value(c, v));
    case 'double': return new FloatBuffer(c, capacity, false);
    case 'single': return new FloatBuffer(c, capacity, true);
    case 'decimal': {
      if (element['type'] === 'BYTE_ARRAY') return new ByteArrayBuffer(c, capacity, (v) => decimalText(c, v));
      const scale = c.scale!;
      const precision = c.precision!;
      if (element['type'] === 'INT32') {
        const limit = 10 ** precision;
        return new Int32Buffer(c, capacity, (v) => Number(unscaledValue(c, v, scale)), -limit + 1, limit - 1, `has more than ${precision} digits`, true);
      }
      if (element['type'] === 'INT64') return new Int64Buffer(c, capacity, (v) => unscaledValue(c, v, scale), 10n ** BigInt(precision));
      return new WideDecimalBuffer(c, capacity, element['type_length'] as number, scale);
    }
    case 'date': return new Int32Buffer(c, capacity, (v) => epochDays(dateText(c, v)), -(2 ** 31), 2 ** 31 - 1, 'is outside the DATE range', false);
    case 'timestamp': {
      const unit = (element['logical_type'] as { unit: 'MILLIS' | 'MICROS' | 'NANOS' }).unit;
      const perMs = unit === 'MILLIS' ? 1 : unit === 'MICROS' ? 1000 : 1_000_000;
      const per = BigInt(1_000_000 / perMs);
      return new Int64Buffer(c, capacity, (v) => {
        const x = instantValue(c, v, perMs, per);
        return typeof x === 'number' ? x : inInt64(c, v, x);
      });
    }
    case 'time': {
      const per = (element['logical_type'] as { unit: string }).unit === 'NANOS' ? 1n : 1000n;
      return new Int64Buffer(c, capacity, (v) => inUnit(c, v, timeNanos(c, v), per));
    }
    case 'guid': return new UuidBuffer(c, capacity);
    case 'binary': return new ByteArrayBuffer(c, capacity, (v) => binaryBytes(c, v));
    case 'json': return new ByteArrayBuffer(c, capacity, (v) => jsonColumnText(c, v));
    case 'duration':
    case 'string': return new ByteArrayBuffer(c, capacity, (v) => (typeof v === 'string' ? v : text(v)));
  }
}
