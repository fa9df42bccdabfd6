// Records to a Parquet file, typed from `$metadata` (the README's "Parquet types" table), written a row
// group at a time: memory holds one row group's values and its encoded bytes, whatever the set's size.
import type { Column } from './columns.js';
import { SinkError } from './errors.js';
import {
  binaryBytes, dateText, decimalText, epochDays, epochNanos, float, guidText, inUnit, int32, int64, text, timeNanos, unscaledDecimal,
} from './values.js';

/** A Parquet schema element as hyparquet-writer takes it (the parquet-format Thrift fields). */
export type ParquetSchemaElement = Record<string, unknown> & { name: string };

/** The unit of a Parquet TIMESTAMP or TIME column. */
export type TimeUnit = 'MILLIS' | 'MICROS' | 'NANOS';
const PER_UNIT: Record<TimeUnit, bigint> = { MILLIS: 1_000_000n, MICROS: 1000n, NANOS: 1n };

/** The unit of a timestamp or time column: its fractional-second precision, microseconds when undeclared. */
export function timeUnitOf(column: Column): TimeUnit {
  const p = column.precision;
  return p === undefined ? 'MICROS' : p <= 3 ? 'MILLIS' : p <= 6 ? 'MICROS' : 'NANOS';
}

/** A decimal column with declared precision and scale is DECIMAL(p,s); without them, exact text. */
function exactDecimal(column: Column): { precision: number; scale: number } | undefined {
  const { precision, scale } = column;
  return precision !== undefined && Number.isInteger(precision) && precision > 0 && scale !== undefined && Number.isInteger(scale) && scale >= 0 && scale <= precision
    ? { precision, scale } : undefined;
}

/** Bytes of a two's-complement FIXED_LEN_BYTE_ARRAY that holds every value of `precision` digits. */
function decimalBytes(precision: number): number {
  return Math.ceil((precision * Math.log2(10) + 1) / 8);
}

/** The Parquet schema element of a column. */
export function parquetElement(column: Column): ParquetSchemaElement {
  const base = { name: column.name, repetition_type: column.nullable ? 'OPTIONAL' : 'REQUIRED' };
  switch (column.kind) {
    case 'boolean': return { ...base, type: 'BOOLEAN' };
    case 'int': {
      const bits = column.bits ?? 32;
      const signed = column.signed !== false;
      const converted = bits === 32 ? {} : { converted_type: `${signed ? 'INT' : 'UINT'}_${bits}` };
      return { ...base, type: 'INT32', ...converted, logical_type: { type: 'INTEGER', bitWidth: bits, isSigned: signed } };
    }
    case 'int64': return { ...base, type: 'INT64', logical_type: { type: 'INTEGER', bitWidth: 64, isSigned: true } };
    case 'double': return { ...base, type: 'DOUBLE' };
    case 'single': return { ...base, type: 'FLOAT' };
    case 'decimal': {
      const d = exactDecimal(column);
      if (d === undefined) return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
      const physical = d.precision <= 9 ? { type: 'INT32' } : d.precision <= 18 ? { type: 'INT64' } : { type: 'FIXED_LEN_BYTE_ARRAY', type_length: decimalBytes(d.precision) };
      return { ...base, ...physical, converted_type: 'DECIMAL', precision: d.precision, scale: d.scale, logical_type: { type: 'DECIMAL', precision: d.precision, scale: d.scale } };
    }
    case 'date': return { ...base, type: 'INT32', converted_type: 'DATE', logical_type: { type: 'DATE' } };
    case 'timestamp': {
      const unit = timeUnitOf(column);
      const converted = unit === 'NANOS' ? {} : { converted_type: `TIMESTAMP_${unit}` };
      return { ...base, type: 'INT64', ...converted, logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit } };
    }
    case 'time': {
      const unit = timeUnitOf(column) === 'NANOS' ? 'NANOS' : 'MICROS';
      return { ...base, type: 'INT64', ...(unit === 'MICROS' ? { converted_type: 'TIME_MICROS' } : {}), logical_type: { type: 'TIME', isAdjustedToUTC: false, unit } };
    }
    case 'guid': return { ...base, type: 'FIXED_LEN_BYTE_ARRAY', type_length: 16, logical_type: { type: 'UUID' } };
    case 'binary': return { ...base, type: 'BYTE_ARRAY' };
    case 'json': return { ...base, type: 'BYTE_ARRAY', converted_type: 'JSON', logical_type: { type: 'JSON' } };
    case 'duration':
    case 'string': return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8', logical_type: { type: 'STRING' } };
  }
}

/** Turns a decoded value into what the column's Parquet element takes. */
export function parquetValue(column: Column): (value: unknown) => unknown {
  switch (column.kind) {
    case 'boolean': return (v) => (typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : int32(column, v) !== 0);
    case 'int': return (v) => int32(column, v);
    case 'int64': return (v) => int64(column, v);
    case 'double':
    case 'single': return (v) => float(column, v);
    case 'decimal': {
      const d = exactDecimal(column);
      if (d === undefined) return (v) => decimalText(column, v);
      // A bigint is taken as the unscaled value (a number would be scaled again, through a float).
      return (v) => unscaledDecimal(column, v, d.scale);
    }
    case 'date': return (v) => epochDays(dateText(column, v));
    case 'timestamp': {
      const per = PER_UNIT[timeUnitOf(column)];
      return (v) => inUnit(column, v, epochNanos(column, v), per);
    }
    case 'time': {
      const per = timeUnitOf(column) === 'NANOS' ? 1n : 1000n;
      return (v) => inUnit(column, v, timeNanos(column, v), per);
    }
    case 'guid': return (v) => guidText(column, v);
    case 'binary': return (v) => binaryBytes(column, v);
    case 'json': return (v) => v;
    case 'duration':
    case 'string': return (v) => text(v);
  }
}

/** Where the file's bytes go, in order; the promise settles when they may be reused. */
export type ByteOutput = (bytes: Uint8Array) => Promise<void>;

/** Options of {@link ParquetRecordWriter.open}. */
export interface ParquetWriterOptions {
  /** The columns, such as `columnsOf(metadata, 'Orders')` gives. */
  columns: readonly Column[];
  /** Receives the file's bytes in order (one call per row group, then the footer). */
  output: ByteOutput;
  /** Rows per row group (default 20,000): the bound of the writer's memory. */
  rowGroupSize?: number | undefined;
  /** `SNAPPY` (default) or `UNCOMPRESSED`. */
  codec?: 'SNAPPY' | 'UNCOMPRESSED' | undefined;
  /** Key-value metadata for the footer, such as the service URL. */
  metadata?: Readonly<Record<string, string>> | undefined;
}

interface HyparquetWriter {
  write(options: { columnData: { name: string; data: unknown[] }[]; rowGroupSize: number }): void | Promise<void>;
  finish(): void | Promise<void>;
}

/** hyparquet-writer's ByteWriter, made to hand its bytes to an output after each row group. */
interface ByteWriterLike {
  buffer: ArrayBuffer;
  index: number;
  flush?: (() => Promise<void>) | undefined;
  finish: () => void | Promise<void>;
}

/**
 * Writes records as a typed Parquet file, one row group at a time (SNAPPY-compressed by default). Values
 * are checked as they are added: a decimal with more digits than its scale, an Int64 that arrived as an
 * inexact number or a timestamp finer than its unit is a {@link SinkError} naming the column.
 *
 * @example
 * ```ts
 * import { open } from 'node:fs/promises'
 * import { columnsOf, ParquetRecordWriter } from '@sluice/sink'
 *
 * const md = await od.metadata()
 * const file = await open('orders.parquet', 'w')
 * const writer = await ParquetRecordWriter.open({ columns: columnsOf(md, 'Orders'), output: async (bytes) => { await file.write(bytes) } })
 * for await (const order of od.from('Orders').stream()) if (order.value) await writer.add(order.value)
 * await writer.close()
 * await file.close()
 * ```
 */
export class ParquetRecordWriter {
  private rows = 0;
  private written = 0;
  private readonly data: unknown[][];
  private readonly convert: ((value: unknown) => unknown)[];

  private constructor(private readonly columns: readonly Column[], private readonly writer: HyparquetWriter, private readonly groupSize: number) {
    this.data = columns.map(() => []);
    this.convert = columns.map(parquetValue);
  }

  /** Starts a file: loads hyparquet-writer and writes the header. */
  static async open(options: ParquetWriterOptions): Promise<ParquetRecordWriter> {
    const groupSize = options.rowGroupSize ?? 20_000;
    if (!Number.isInteger(groupSize) || groupSize < 1) throw new SinkError(`rowGroupSize must be a positive integer, got ${String(groupSize)}`, 'value');
    if (options.columns.length === 0) throw new SinkError('a Parquet file needs at least one column', 'select');
    const hp = await import('hyparquet-writer');
    const bytes = new hp.ByteWriter() as unknown as ByteWriterLike;
    const drain = async (): Promise<void> => {
      const chunk = new Uint8Array(bytes.buffer, 0, bytes.index).slice();
      bytes.index = 0;
      await options.output(chunk);
    };
    bytes.flush = drain;
    bytes.finish = drain;
    const schema = [{ name: 'root', num_children: options.columns.length }, ...options.columns.map(parquetElement)];
    const kv = Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value }));
    const writer = new hp.ParquetWriter({
      writer: bytes as never,
      schema: schema as never,
      codec: options.codec ?? 'SNAPPY',
      createdBy: 'sluice (hyparquet-writer)',
      ...(kv.length ? { kvMetadata: kv } : {}),
    }) as unknown as HyparquetWriter;
    return new ParquetRecordWriter(options.columns, writer, groupSize);
  }

  /** Rows added so far. */
  get count(): number {
    return this.written + this.rows;
  }

  /** Adds one record (its properties by column name); a full row group is written out. */
  async add(record: Readonly<Record<string, unknown>>): Promise<void> {
    for (let i = 0; i < this.columns.length; i++) {
      const column = this.columns[i]!;
      const value = record[column.name];
      if (value === null || value === undefined) {
        if (!column.nullable) throw new SinkError(`column ${column.name} is not nullable, but a record has no value for it`, 'value');
        this.data[i]!.push(null);
      } else {
        this.data[i]!.push(this.convert[i]!(value));
      }
    }
    if (++this.rows >= this.groupSize) await this.flushGroup();
  }

  /** Writes the last row group and the footer. */
  async close(): Promise<void> {
    if (this.rows > 0) await this.flushGroup();
    await this.writer.finish();
  }

  private async flushGroup(): Promise<void> {
    const columnData = this.columns.map((c, i) => ({ name: c.name, data: this.data[i]! }));
    const rows = this.rows;
    this.rows = 0;
    for (let i = 0; i < this.data.length; i++) this.data[i] = [];
    await this.writer.write({ columnData, rowGroupSize: rows });
    this.written += rows;
  }
}
