// `sluice sync <service-url> <entity-set> --into sqlite:<file> | postgres://...`: keeps a table equal to an
// entity set (@sluice/sink's syncEntitySet), with the progress and summary of `export`.
import { SinkError, syncEntitySet, type SyncResult } from '@sluice/sink';
import type { SYNC_MODES } from './command-options.js';
import { UsageError } from './errors.js';
import { explainNotFound } from './entity-set-check.js';
import { rateLimitOf, type PartitionFlags } from './partition-flags.js';
import { planUsageError } from './partitioned-export.js';
import { formatCount, formatSeconds, createProgress, recordsText, type ProgressMode } from './progress.js';
import { buildQuery, list } from './query-flags.js';
import { openService, type ConnectionFlags } from './session.js';
import type { Terminal } from './terminal.js';

/** Flags of `sluice sync`; the partition flags apply with `--mode snapshot`. */
export interface SyncFlags extends ConnectionFlags, Pick<PartitionFlags, 'partitions' | 'partitionBy' | 'boundaries' | 'parallel' | 'rate' | 'burst'> {
  into?: string;
  table?: string;
  mode: (typeof SYNC_MODES)[number];
  rebuild?: boolean;
  select?: string;
  filter?: string;
  param?: string[];
  progress: ProgressMode;
  quiet?: boolean;
}

/** Sink errors about the command line, the table's shape or the schema: exit code 2 with the message. */
const USAGE_CODES = new Set(['select', 'entity-set', 'target', 'shape', 'drift', 'mode']);


/** Partition flags that cannot apply: exit 2 before anything is opened. */
function checkSyncPartitions(flags: SyncFlags): void {
  const only = [flags.partitionBy !== undefined && '--partition-by', flags.boundaries !== undefined && '--boundaries', flags.parallel !== undefined && '--parallel'].filter(Boolean);
  if (flags.partitions === undefined) {
    if (only.length) throw new UsageError(`${only.join(', ')} need${only.length === 1 ? 's' : ''} --partitions`);
    return;
  }
  if (flags.mode !== 'snapshot') throw new UsageError('--partitions needs --mode snapshot', 'a partitioned load reads everything into a staging table swapped in at the end; delta runs read one stream of changes');
}

function summary(result: SyncResult, entitySet: string, seconds: number): string {
  const records = result.upserted + result.deleted;
  const what = result.run === 'delta' ? `${formatCount(result.upserted)} upserted, ${formatCount(result.deleted)} deleted`
    : `${recordsText(result.upserted)} loaded${result.run === 'reload' ? ' again into a new table' : ''}`;
  const peak = process.resourceUsage().maxRSS / 1024;
  const parts = result.partitions === undefined ? '' : `, ${result.partitions} partitions`;
  return `sluice: synced ${entitySet} into ${result.target} table ${result.table} (${result.run === 'delta' ? 'changes' : result.run}, mode ${result.mode}${parts}): ` +
    `${what} in ${formatSeconds(seconds)} (${formatCount(records / Math.max(seconds, 0.001))} records/s, peak memory ${peak.toFixed(0)} MiB)`;
}

/** `sluice sync`: one run, then a summary on stderr. */
export async function syncCommand(serviceURL: string, entitySet: string, flags: SyncFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  if (flags.into === undefined || flags.into === '') throw new UsageError('sluice sync needs --into <target>', 'such as --into sqlite:orders.db or --into postgres://user@host:5432/db');
  checkSyncPartitions(flags);
  const od = await openService(serviceURL, flags, terminal, signal, 'auto', { rateLimit: rateLimitOf(flags) });
  const progress = createProgress(flags.quiet ? 'never' : flags.progress, terminal.stderr);
  const started = performance.now();
  try {
    const select = list(flags.select);
    const result = await syncEntitySet({
      od,
      entitySet,
      query: buildQuery(od, entitySet, flags),
      select,
      into: flags.into,
      table: flags.table,
      mode: flags.mode,
      rebuild: flags.rebuild === true,
      partitions: flags.partitions,
      partitionBy: flags.partitionBy,
      boundaries: flags.boundaries,
      parallel: flags.parallel,
      signal,
      onProgress: (p) => progress.update(p.upserted + p.deleted),
      onNotice: (message) => { if (!flags.quiet) terminal.note(`sluice: ${message}`); },
    });
    progress.stop();
    if (!flags.quiet) terminal.note(summary(result, entitySet, (performance.now() - started) / 1000));
  } catch (error) {
    progress.stop();
    if (error instanceof SinkError && error.code === 'partition') throw planUsageError(error.cause) ?? new UsageError(error.message);
    if (error instanceof SinkError && USAGE_CODES.has(error.code)) throw new UsageError(error.message);
    throw await explainNotFound(od, entitySet, error, signal);
  } finally {
    await od.close();
  }
}
