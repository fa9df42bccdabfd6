import type { ODataClient, Query } from '@sluice/odata';
import { queryBatches, recordFormat, skipRetried, type ExportFlags } from './export.js';
import { EncodedText, FLUSH_BYTES } from './encoded-text.js';
import type { RecordFormat } from './formats.js';
import { FileSink } from './output.js';
import { openParquet } from './parquet-export.js';
import type { Terminal } from './terminal.js';

/**
 * Writes the records of one partition's query to `path`, complete or not at all: a temporary file
 * beside it, renamed over it at the end (a former file of the partition is replaced whole). Resolves
 * with the number of records; a failure or abort removes the temporary file and rethrows.
 */
export async function writePartFile(
  od: ODataClient, entitySet: string, query: Query, path: string, flags: ExportFlags,
  terminal: Terminal, signal: AbortSignal, onRecords: (added: number) => void,
): Promise<number> {
  if (flags.format === 'parquet') return writeParquetPart(od, entitySet, query, path, flags, terminal, signal, onRecords);
  const sink = await FileSink.open(path);
  let records = 0;
  let reported = 0;
  const out = new EncodedText();
  try {
    let format: RecordFormat | undefined;
    const open = async (first: unknown): Promise<RecordFormat> => {
      const chosen = await recordFormat(od, entitySet, flags, first, false, signal);
      out.add(chosen.begin());
      return chosen;
    };
    for await (const batch of queryBatches(query, flags, signal)) {
      if (signal.aborted) break;
      if (batch.error !== undefined) {
        skipRetried(batch.error, terminal);
        continue;
      }
      const values = batch.value;
      if (values.length === 0) continue;
      format ??= await open(values[0]);
      let text = '';
      for (const value of values) text += format.record(value);
      out.add(text);
      records += values.length;
      if (out.bytes >= FLUSH_BYTES) {
        await out.writeTo(sink);
        onRecords(records - reported);
        reported = records;
      }
    }
    if (signal.aborted) throw signal.reason;
    format ??= await open(undefined);
    out.add(format.end());
    await out.writeTo(sink);
    await sink.commit();
    onRecords(records - reported);
    return records;
  } catch (error) {
    await sink.discard();
    throw error;
  }
}

/** {@link writePartFile} for Parquet: records go to the row groups of @sluice/sink, the footer at the end. */
async function writeParquetPart(
  od: ODataClient, entitySet: string, query: Query, path: string, flags: ExportFlags,
  terminal: Terminal, signal: AbortSignal, onRecords: (added: number) => void,
): Promise<number> {
  const sink = await openParquet(od, entitySet, { ...flags, out: path }, signal);
  let records = 0;
  try {
    for await (const batch of queryBatches(query, flags, signal)) {
      if (signal.aborted) break;
      if (batch.error !== undefined) {
        skipRetried(batch.error, terminal);
        continue;
      }
      for (const value of batch.value) {
        await sink.add(value);
        if (++records % 10_000 === 0) onRecords(10_000);
      }
    }
    if (signal.aborted) throw signal.reason;
    await sink.commit();
    onRecords(records % 10_000);
    return records;
  } catch (error) {
    await sink.discard();
    throw error;
  }
}
