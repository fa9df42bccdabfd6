import { PageError, type EntityTypeInfo, type ODataClient, type Query, type StreamItem } from '@sluice/odata';
import { formatCount, formatSeconds, createProgress, recordsText, type Progress, type ProgressMode } from './progress.js';
import type { FormatName } from './format-names.js';
import { columnsOf, csv, jsonArray, ndjsonWith, type RecordFormat } from './formats.js';
import { floatReplacer } from './special-floats.js';
import { EncodedText, FLUSH_BYTES } from './encoded-text.js';
import type { DeltaFlags } from './delta-export.js';
import { explainNotFound } from './entity-set-check.js';
import { FileSink, OutputClosed, StreamSink, type Sink } from './output.js';
import { checkOutFile } from './out-file.js';
import { parseExpand } from './expand-flags.js';
import { buildQuery, list, readyForSelect, type QueryFlags } from './query-flags.js';
import { rateLimitOf, type PartitionFlags } from './partition-flags.js';
import { openService, type ConnectionFlags } from './session.js';
import type { Terminal } from './terminal.js';

/** Flags of `sluice export`. */
export interface ExportFlags extends ConnectionFlags, QueryFlags, DeltaFlags, Pick<PartitionFlags, 'rate' | 'burst'> {
  format: FormatName;
  out?: string;
  pageSize?: number;
  progress: ProgressMode;
  quiet?: boolean;
  /** CSV cells as the service sent them: no `'` before text that starts like a formula. */
  csvRaw?: boolean;
  /** `--compression` of a Parquet export (snappy, zstd, gzip, none). */
  compression?: string;
}

/** The entity type of `entitySet` in `$metadata`, if the service gives it. */
async function entityTypeOf(od: ODataClient, entitySet: string, signal: AbortSignal): Promise<EntityTypeInfo | undefined> {
  const md = await od.metadata({ signal }).catch(() => undefined);
  return md?.entitySets.get(entitySet)?.entityType;
}

/** CSV columns: `--select` (and `--expand`), else the entity type in `$metadata`, else the first record. */
async function csvColumns(od: ODataClient, entitySet: string, flags: ExportFlags, first: unknown, signal: AbortSignal): Promise<string[]> {
  const expand = parseExpand(flags.expand).map((e) => e.path);
  const select = list(flags.select);
  // An expansion whose properties are selected (author/name) has those columns instead of a JSON cell.
  if (select.length) return [...select, ...expand.filter((e) => !select.includes(e) && !select.some((s) => s.startsWith(`${e}/`)))];
  const type = await entityTypeOf(od, entitySet, signal);
  if (type) return [...type.properties.keys(), ...expand];
  return columnsOf(first);
}

/** The CSV format of an export; a delta export adds the removal columns. */
export async function csvFormat(od: ODataClient, entitySet: string, flags: ExportFlags, first: unknown, delta: boolean, signal: AbortSignal): Promise<RecordFormat> {
  const raw = flags.csvRaw === true;
  if (!delta) {
    const columns = await csvColumns(od, entitySet, flags, first, signal);
    return csv(columns, raw, floatReplacer(od, entitySet));
  }
  const { deltaCSV, entityRecord } = await import('./delta-export.js');
  const columns = await csvColumns(od, entitySet, flags, entityRecord(first), signal);
  return deltaCSV(columns, (await entityTypeOf(od, entitySet, signal))?.key ?? [], raw, floatReplacer(od, entitySet));
}

/**
 * The format of an export once its first records are read: CSV ({@link csvFormat}), a JSON array or NDJSON.
 * JSON writes a Double's Infinity, -Infinity, NaN (decoded when the model is loaded) as `"INF"`, `"-INF"`,
 * `"NaN"`, through a replacer only for an entity type that can hold a Double or Single.
 */
export async function recordFormat(od: ODataClient, entitySet: string, flags: ExportFlags, first: unknown, delta: boolean, signal: AbortSignal): Promise<RecordFormat> {
  if (flags.format === 'csv') return csvFormat(od, entitySet, flags, first, delta, signal);
  const replacer = floatReplacer(od, entitySet);
  return flags.format === 'json' ? jsonArray(replacer) : ndjsonWith(replacer);
}

/** The total the progress bar counts to: `$count` with `--skip` and `--top` applied; failures are ignored. */
function countInBackground(query: Query, flags: ExportFlags, progress: Progress, signal: AbortSignal): void {
  query.countOnly({ signal }).then((count) => {
    let total = Math.max(count - (flags.skip ?? 0), 0);
    if (flags.top !== undefined) total = Math.min(total, flags.top);
    progress.setTotal(total);
  }, () => undefined);
}

/**
 * The records of a plain read in arrays (`streamBatches()`, one per run of a body chunk), read by the export
 * loop itself: one item and one await per run rather than per record.
 */
export function queryBatches(query: Query, flags: ExportFlags, signal: AbortSignal): AsyncIterable<StreamItem<unknown[]>> {
  return query.streamBatches({ signal, ...(flags.pageSize === undefined ? {} : { maxPageSize: flags.pageSize }) });
}

/** A page that will be tried again is skipped (noted with --verbose); other errors end the export. */
export function skipRetried(error: Error, terminal: Terminal): void {
  if (!(error instanceof PageError && error.willRetry)) throw error;
  terminal.debug(error.message);
}

/** What the record loop of an export shares with {@link exportEntitySet}: the count so far and the chosen format. */
interface ExportRun {
  records: number;
  format: RecordFormat | undefined;
  readonly out: EncodedText;
  readonly sink: Sink;
  readonly progress: Progress;
  readonly terminal: Terminal;
  readonly signal: AbortSignal;
}

// The record loops are functions of their own, apart from exportEntitySet: they are the only code of the
// command that runs per batch, so V8's optimising compiler (which works on threads beside the main one)
// compiles these loops, rather than the whole command with its set-up, error handling and summary, which it
// otherwise optimised as a whole for its one long call. (What the loop inlines is the same either way.)

/** Writes the batches of a text export (NDJSON, CSV, JSON) into `run.out`, flushing it to the sink as it fills. */
async function writeTextBatches(batches: AsyncIterable<StreamItem<unknown[]>>, open: (first: unknown) => Promise<RecordFormat>, run: ExportRun): Promise<void> {
  const { out, sink, progress, signal } = run;
  for await (const batch of batches) {
    if (signal.aborted) break;
    if (batch.error !== undefined) {
      skipRetried(batch.error, run.terminal);
      continue;
    }
    const values = batch.value;
    if (values.length === 0) continue;
    const format = run.format ??= await open(values[0]);
    let text = '';
    for (const value of values) text += format.record(value);
    out.add(text);
    run.records += values.length;
    if (out.bytes >= FLUSH_BYTES) {
      await out.writeTo(sink);
      progress.update(run.records);
    }
  }
}

/** Adds the records of a Parquet export to its writer. */
async function addParquetBatches(batches: AsyncIterable<StreamItem<unknown[]>>, parquet: { add(value: unknown): Promise<void> }, run: ExportRun): Promise<void> {
  for await (const batch of batches) {
    if (run.signal.aborted) break;
    if (batch.error !== undefined) {
      skipRetried(batch.error, run.terminal);
      continue;
    }
    for (const value of batch.value) {
      await parquet.add(value);
      if (++run.records % 10_000 === 0) run.progress.update(run.records);
    }
  }
}

/**
 * `sluice export`: streams an entity set to NDJSON, CSV or JSON in constant memory. With `--out` the
 * file appears only when the export is complete (temporary file, then rename); on stdout every record
 * is written whole. A failure or a signal stops it, and the error is thrown after the cleanup. With
 * `--delta-state` only the changes since the last run are written, and the state file advances after
 * the output is complete.
 */
export async function exportEntitySet(serviceURL: string, entitySet: string, flags: ExportFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  // Change tracking and Parquet (with @sluice/sink) are loaded only for an export that uses them.
  const tracking = flags.deltaState !== undefined || flags.deltaReset ? await import('./delta-export.js') : undefined;
  tracking?.checkDeltaFlags(flags);
  const parquetFormat = flags.format === 'parquet' ? await import('./parquet-export.js') : undefined;
  parquetFormat?.checkParquetFlags(flags);
  const toFile = flags.out !== undefined && flags.out !== '-';
  if (toFile) for (const stale of await checkOutFile(flags.out!)) terminal.debug(`removed ${stale}, left by an export that was killed`);
  const od = await openService(serviceURL, flags, terminal, signal, 'auto', { rateLimit: rateLimitOf(flags) });
  try {
    await readyForSelect(od, flags, signal);
    const query = buildQuery(od, entitySet, flags);
    const delta = flags.deltaState === undefined ? undefined : tracking?.deltaRecords(od, query, flags, signal);
    const parquet = parquetFormat ? await parquetFormat.openParquet(od, entitySet, flags, signal).catch(async (error: unknown) => { throw await explainNotFound(od, entitySet, error, signal); }) : undefined;
    const sink: Sink = parquet ?? (toFile ? await FileSink.open(flags.out!) : new StreamSink(terminal.stdout));
    // Records printed on the terminal itself would be torn apart by a bar redrawn among them.
    const dataOnScreen = sink instanceof StreamSink && (terminal.stdout as { isTTY?: boolean }).isTTY === true;
    const progress = createProgress(flags.quiet || (dataOnScreen && flags.progress === 'auto') ? 'never' : flags.progress, terminal.stderr);
    const started = performance.now();
    const out = new EncodedText();
    const run: ExportRun = { records: 0, format: undefined, out, sink, progress, terminal, signal };
    try {
      if (progress.active && !delta) countInBackground(query, flags, progress, signal);
      const open = async (first: unknown): Promise<RecordFormat> => {
        const chosen = await recordFormat(od, entitySet, flags, first, delta !== undefined, signal);
        out.add(chosen.begin());
        return chosen;
      };
      const batches = delta === undefined ? queryBatches(query, flags, signal) : delta.records;
      await (parquet ? addParquetBatches(batches, parquet, run) : writeTextBatches(batches, open, run));
      if (signal.aborted) throw signal.reason;
      if (!parquet) {
        const format = run.format ?? await open(undefined);
        out.add(format.end());
        await out.writeTo(sink);
      }
      await sink.commit();
      await delta?.commit();
      progress.update(run.records);
      progress.stop();
    } catch (error) {
      progress.stop();
      // Only whole records are in `out`: stdout keeps them, a file is removed unfinished.
      if (sink instanceof StreamSink && out.bytes > 0) await out.writeTo(sink).catch(() => undefined);
      await sink.discard();
      if (error instanceof OutputClosed) return;
      if (signal.aborted && !flags.quiet) {
        terminal.note(`sluice: stopped after ${recordsText(run.records)}; ${sink instanceof StreamSink ? 'stdout holds whole records only' : `${sink.name} was not written`}`);
      }
      const explained = await explainNotFound(od, entitySet, error, signal);
      throw tracking === undefined ? explained : tracking.explainDeltaError(explained, flags.deltaState);
    }
    if (!flags.quiet) {
      const seconds = (performance.now() - started) / 1000;
      const peak = process.resourceUsage().maxRSS / 1024;
      terminal.note(`sluice: exported ${recordsText(run.records)} of ${entitySet} to ${sink.name} in ${formatSeconds(seconds)} ` +
        `(${formatCount(run.records / Math.max(seconds, 0.001))} records/s, peak memory ${peak.toFixed(0)} MiB)`);
    }
  } finally {
    await od.close();
  }
}
