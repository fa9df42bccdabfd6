// `sluice export --format parquet`: columns typed from `$metadata` (@sluice/sink), written a row group at a
// time into a temporary file that is renamed over `--out` once complete.
import type { ODataClient } from '@sluice/odata';
import { columnsOf, ParquetRecordWriter, SinkError, unsupportedCodec, type Column, type ParquetCodec } from '@sluice/sink';
import { UsageError } from './errors.js';
import { FileSink, type Sink } from './output.js';
import { list } from './query-flags.js';

/** Flags of `sluice export` that the Parquet format reads. */
export interface ParquetFlags {
  out?: string;
  select?: string;
  expand?: string;
  deltaState?: string;
  pageSize?: number;
  format?: string;
  /** `--compression`: the Parquet codec, lower case (`none` is UNCOMPRESSED). */
  compression?: string;
}

const codecOf = (compression: string | undefined): ParquetCodec =>
  compression === undefined ? 'SNAPPY' : compression === 'none' ? 'UNCOMPRESSED' : (compression.toUpperCase() as ParquetCodec);

/** Checks `--compression` for any format, before anything is read: only Parquet has one, ZSTD only on a Node that has it. */
export function checkCompressionFlag(flags: ParquetFlags): void {
  if (flags.compression === undefined) return;
  if (flags.format !== 'parquet') throw new UsageError(`--compression goes with --format parquet (not ${flags.format ?? 'ndjson'})`);
  const unsupported = unsupportedCodec(codecOf(flags.compression));
  if (unsupported !== undefined) throw new UsageError(`--compression zstd: ${unsupported.replace(/^codec ZSTD /, '')}`, 'use --compression snappy (the default) or gzip');
}

/** Checks the flags that do not go with `--format parquet`, before anything is read. */
export function checkParquetFlags(flags: ParquetFlags): void {
  if (flags.out === undefined || flags.out === '-') throw new UsageError('--format parquet needs --out <file> (a Parquet file is written whole, with its footer last)');
  if (flags.deltaState !== undefined) throw new UsageError('--delta-state does not go with --format parquet (a Parquet row cannot mark a removal)', 'use --format ndjson or csv, or `sluice sync` to keep a table in step');
}

/** The Parquet columns of the export: the entity type's (or `--select`'s), then one JSON column per `--expand`. */
async function parquetColumns(od: ODataClient, entitySet: string, flags: ParquetFlags, signal: AbortSignal): Promise<Column[]> {
  const md = await od.metadata({ signal });
  let columns: Column[];
  try {
    columns = columnsOf(md, entitySet, { select: list(flags.select) });
  } catch (error) {
    throw error instanceof SinkError ? new UsageError(error.message) : error;
  }
  for (const nav of list(flags.expand)) {
    if (!columns.some((c) => c.name === nav)) columns.push({ name: nav, edmType: 'navigation', kind: 'json', nullable: true, key: false });
  }
  return columns;
}

/** The output of a Parquet export: records are added (not written as text); `commit` writes the footer and renames. */
export interface ParquetOutput extends Sink {
  add(record: unknown): Promise<void>;
}

/**
 * Opens `--out` for a Parquet export: the columns from `$metadata` and a temporary file beside the
 * target, renamed over it by `commit()`.
 */
export async function openParquet(od: ODataClient, entitySet: string, flags: ParquetFlags, signal: AbortSignal): Promise<ParquetOutput> {
  const columns = await parquetColumns(od, entitySet, flags, signal);
  const sink = await FileSink.open(flags.out!);
  try {
    const writer = await ParquetRecordWriter.open({
      columns,
      entitySet,
      output: (bytes) => sink.write(bytes),
      codec: codecOf(flags.compression),
    });
    return {
      name: sink.name,
      write: () => Promise.reject(new Error('a Parquet export takes records, not text')),
      add: (record) => writer.add(record as Record<string, unknown>),
      async commit() {
        await writer.close();
        await sink.commit();
      },
      discard: () => sink.discard(),
    };
  } catch (error) {
    await sink.discard();
    throw error;
  }
}
