// Records to a Parquet file, typed from `$metadata` (the README's "Parquet types" table), written a row
// group at a time: memory holds one row group's values and its encoded bytes, whatever the set's size.
import zlib from 'node:zlib';
import type { Column } from './columns.js';
import { SinkError } from './errors.js';
import { columnBuffer, type ColumnBuffer } from './parquet-columns.js';
import { snappyCompress } from './snappy.js';
import { recordOf } from './values.js';

/** A Parquet schema element as hyparquet-writer takes it (the parquet-format Thrift fields). */
export type ParquetSchemaElement = Record<string, unknown> & { name: string };

/** The unit of a Parquet TIMESTAMP or TIME column. */
export type TimeUnit = 'MILLIS' | 'MICROS' | 'NANOS';

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
    // Integers carry the converted type (INT_8 ... INT_64, UINT_8): hyparquet-writer 0.17 writes the INTEGER
    // logical type's bit width as an i32 where the format has an i8, and DuckDB refuses such a file.
    case 'int': return { ...base, type: 'INT32', converted_type: `${column.signed === false ? 'UINT' : 'INT'}_${column.bits ?? 32}` };
    case 'int64': return { ...base, type: 'INT64', converted_type: 'INT_64' };
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

/** Where the file's bytes go, in order; the promise settles when they may be reused. */
export type ByteOutput = (bytes: Uint8Array) => Promise<void>;

/**
 * Compression of the data pages: `SNAPPY` (the default), `ZSTD` (needs Node >= 22.15 or 23.8, whose
 * `node:zlib` has Zstandard), `GZIP`, or `UNCOMPRESSED`.
 */
export type ParquetCodec = 'SNAPPY' | 'ZSTD' | 'GZIP' | 'UNCOMPRESSED';

/** Options of {@link ParquetRecordWriter.open}. */
export interface ParquetWriterOptions {
  /** The columns, such as `columnsOf(metadata, 'Orders')` gives. */
  columns: readonly Column[];
  /** Receives the file's bytes in order (the header, one call per row group, then the footer). */
  output: ByteOutput;
  /** Rows per row group (default 20,000): the bound of the writer's memory. */
  rowGroupSize?: number | undefined;
  /** The compression of the data pages (default `SNAPPY`). */
  codec?: ParquetCodec | undefined;
  /** The entity set the records come from, named (with the record's key) in the error of a value a column cannot hold. */
  entitySet?: string | undefined;
  /** Key-value metadata for the footer, such as the service URL. */
  metadata?: Readonly<Record<string, string>> | undefined;
}

const CODECS: readonly ParquetCodec[] = ['SNAPPY', 'ZSTD', 'GZIP', 'UNCOMPRESSED'];
const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // PAR1

const zstdCompress = (zlib as { zstdCompressSync?: (bytes: Uint8Array) => Uint8Array }).zstdCompressSync;

/** Why this Node cannot write `codec` (ZSTD before Node 22.15), or undefined when it can. */
export function unsupportedCodec(codec: ParquetCodec): string | undefined {
  return codec === 'ZSTD' && zstdCompress === undefined
    ? `codec ZSTD needs Node >= 22.15 (node:zlib's Zstandard); this is Node ${process.versions.node}: use SNAPPY or GZIP, or a newer Node`
    : undefined;
}

/** The compression function of a codec, or an error saying what is missing. */
function compressorOf(codec: ParquetCodec): (bytes: Uint8Array) => Uint8Array {
  const unsupported = unsupportedCodec(codec);
  if (unsupported !== undefined) throw new SinkError(unsupported, 'codec');
  if (codec === 'UNCOMPRESSED') return (bytes) => bytes.slice();
  if (codec === 'SNAPPY') return snappyCompress;
  if (codec === 'GZIP') return (bytes) => zlib.gzipSync(bytes);
  return (bytes) => zstdCompress!(bytes);
}

/** The RLE/bit-packed hybrid encoding (bit width 1) of definition levels: one run of 1s, else bit-packed groups of 8. */
function definitionLevels(defs: Uint8Array, rows: number, nulls: number): Uint8Array {
  if (nulls === 0) return Uint8Array.of(...varint(rows << 1), 1);
  const groups = Math.ceil(rows / 8);
  const header = varint((groups << 1) | 1);
  const out = new Uint8Array(header.length + groups);
  out.set(header);
  for (let i = 0; i < rows; i++) out[header.length + (i >> 3)]! |= defs[i]! << (i & 7);
  return out;
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

type Library = {
  ByteWriter: typeof import('hyparquet-writer').ByteWriter;
  writePageHeader: typeof import('hyparquet-writer/src/datapage.js').writePageHeader;
  writeMetadata: typeof import('hyparquet-writer/src/metadata.js').writeMetadata;
};

/**
 * Writes records as a typed Parquet file, one row group at a time (one PLAIN data page per column chunk,
 * SNAPPY-compressed by default, min/max/null statistics per chunk). Values are converted and checked as they
 * are added: a value its column cannot hold exactly (a decimal with more digits than its precision or scale, an
 * Int64 that arrived as an inexact number, an integer beyond its type, a Single beyond float32, a day not on the
 * calendar, a timestamp finer than its unit or beyond its range) is a `value` {@link SinkError} naming the entity
 * set, the column, the record's key and the value, and the writer takes no more records after it: discard the
 * file (nothing of the row group was written).
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
  private offset = MAGIC.length;
  private failed: unknown;
  private readonly names: string[];
  private readonly rowGroups: Record<string, unknown>[] = [];

  private constructor(
    private readonly options: ParquetWriterOptions,
    private readonly elements: ParquetSchemaElement[],
    private readonly buffers: ColumnBuffer[],
    private readonly groupSize: number,
    private readonly codec: ParquetCodec,
    private readonly compress: (bytes: Uint8Array) => Uint8Array,
    private readonly lib: Library,
  ) {
    this.names = options.columns.map((c) => c.name);
  }

  /** Starts a file: checks the options, loads hyparquet-writer's Thrift encoders, writes the header. */
  static async open(options: ParquetWriterOptions): Promise<ParquetRecordWriter> {
    const groupSize = options.rowGroupSize ?? 20_000;
    if (!Number.isInteger(groupSize) || groupSize < 1) throw new SinkError(`rowGroupSize must be a positive integer, got ${String(groupSize)}`, 'value');
    if (options.columns.length === 0) throw new SinkError('a Parquet file needs at least one column', 'select');
    const codec = options.codec ?? 'SNAPPY';
    if (!CODECS.includes(codec)) throw new SinkError(`codec must be one of ${CODECS.join(', ')}, got ${String(codec)}`, 'codec');
    const compress = compressorOf(codec);
    const [hp, page, meta] = await Promise.all([
      import('hyparquet-writer'), import('hyparquet-writer/src/datapage.js'), import('hyparquet-writer/src/metadata.js'),
    ]);
    const elements = options.columns.map(parquetElement);
    const buffers = options.columns.map((c, i) => columnBuffer(c, groupSize, elements[i]!));
    const writer = new ParquetRecordWriter(options, elements, buffers, groupSize, codec, compress,
      { ByteWriter: hp.ByteWriter, writePageHeader: page.writePageHeader, writeMetadata: meta.writeMetadata });
    await options.output(MAGIC.slice());
    return writer;
  }

  /** Rows added so far. */
  get count(): number {
    return this.written + this.rows;
  }

  /** Adds one record (its properties by column name); a full row group is written out. */
  async add(record: Readonly<Record<string, unknown>>): Promise<void> {
    if (this.failed !== undefined) throw this.refused();
    try {
      for (let i = 0; i < this.buffers.length; i++) this.buffers[i]!.add(record[this.names[i]!]);
    } catch (error) {
      const named = error instanceof SinkError
        ? new SinkError(`${error.message} (${recordOf(this.options.entitySet, this.options.columns.filter((c) => c.key), record)})`, error.code, { cause: error })
        : error;
      this.failed = named;
      throw named;
    }
    if (++this.rows >= this.groupSize) await this.flushGroup();
  }

  /** Writes the last row group and the footer. */
  async close(): Promise<void> {
    if (this.failed !== undefined) throw this.refused();
    if (this.rows > 0) await this.flushGroup();
    const footer = new this.lib.ByteWriter();
    const kv = Object.entries(this.options.metadata ?? {}).map(([key, value]) => ({ key, value }));
    const metadata = {
      version: 1,
      schema: [{ name: 'root', num_children: this.elements.length }, ...this.elements],
      num_rows: BigInt(this.written),
      row_groups: this.rowGroups,
      created_by: 'sluice (@sluice/sink)',
      ...(kv.length ? { key_value_metadata: kv } : {}),
    };
    this.lib.writeMetadata(footer, metadata as never);
    footer.appendBytes(MAGIC);
    await this.options.output(footer.getBytes());
  }

  private refused(): SinkError {
    const why = this.failed instanceof Error ? this.failed.message : String(this.failed);
    return new SinkError(`the Parquet writer takes no more records after an error (${why})`, 'value');
  }

  private async flushGroup(): Promise<void> {
    const start = this.offset;
    const pieces: Uint8Array[] = [];
    const columns: Record<string, unknown>[] = [];
    let uncompressed = 0;
    for (let i = 0; i < this.buffers.length; i++) {
      const buffer = this.buffers[i]!;
      const values = buffer.plain();
      let body = values;
      if (buffer.defs !== undefined) {
        const levels = definitionLevels(buffer.defs, buffer.rows, buffer.nulls);
        body = new Uint8Array(4 + levels.length + values.length);
        new DataView(body.buffer).setUint32(0, levels.length, true);
        body.set(levels, 4);
        body.set(values, 4 + levels.length);
      }
      const compressed = this.compress(body);
      const header = new this.lib.ByteWriter();
      this.lib.writePageHeader(header, {
        type: 'DATA_PAGE',
        uncompressed_page_size: body.length,
        compressed_page_size: compressed.length,
        data_page_header: { num_values: buffer.rows, encoding: 'PLAIN', definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
      });
      const head = header.getBytes();
      pieces.push(head, compressed);
      uncompressed += head.length + body.length;
      columns.push({
        file_offset: BigInt(this.offset),
        meta_data: {
          type: this.elements[i]!['type'],
          encodings: buffer.defs === undefined ? ['PLAIN'] : ['PLAIN', 'RLE'],
          path_in_schema: [this.names[i]],
          codec: this.codec,
          num_values: BigInt(buffer.rows),
          total_uncompressed_size: BigInt(head.length + body.length),
          total_compressed_size: BigInt(head.length + compressed.length),
          data_page_offset: BigInt(this.offset),
          statistics: buffer.statistics(),
        },
      });
      this.offset += head.length + compressed.length;
    }
    const rows = this.rows;
    this.rowGroups.push({
      columns, num_rows: BigInt(rows), total_byte_size: BigInt(uncompressed), file_offset: BigInt(start), total_compressed_size: BigInt(this.offset - start),
    });
    const bytes = Buffer.concat(pieces);
    for (const buffer of this.buffers) buffer.reset();
    this.rows = 0;
    this.written += rows;
    await this.options.output(bytes);
  }
}
