import { join, resolve } from 'node:path';
import { checkQueueReachable, enqueueExport, waitForExport } from '@sluice/queue';
import type { ExportFlags } from './export.js';
import { FleetRates, fleetTokenCache } from './fleet.js';
import { manifestHead, MANIFEST_FILE, type Manifest } from './manifest.js';
import { partFileName } from './part-names.js';
import { prepareOutDir, type PartitionFlags } from './partition-flags.js';
import { planExport } from './partitioned-export.js';
import { formatSeconds, recordsText } from './progress.js';
import { buildQuery, type QueryFlags } from './query-flags.js';
import { openService } from './session.js';
import type { Terminal } from './terminal.js';

/** What a worker needs to read one partition (no credentials: each worker has its own). */
export interface PartPayload {
  service: string;
  entitySet: string;
  odataVersion: '2' | '4' | 'auto';
  query: QueryFlags;
  format: ExportFlags['format'];
  csvRaw: boolean;
  /** `--compression` of Parquet parts (absent from payloads of a sluice before it: Snappy). */
  compression?: string | undefined;
  pageSize: number | undefined;
  /** The output directory, absolute: every worker must see it at this path (a shared file system). */
  out: string;
  file: string;
  /** The partition's range as `$filter` text, ANDed with the query's filter; null for the whole set. */
  range: string | null;
  lower: string | number | null;
  upper: string | number | null;
  nulls: boolean;
  rate: number | undefined;
  burst: number | undefined;
}

/** What the export job needs to write the manifest. */
export interface ExportPayload {
  out: string;
  head: Omit<Manifest, 'records' | 'finishedAt' | 'partitions'>;
}

/** Default BullMQ queue of `sluice export --queue` and `sluice worker`. */
export const QUEUE_NAME = 'sluice-export';

/**
 * `sluice export --partitions N --queue redis://… --out <dir>`: plans the partitions here, then enqueues
 * one BullMQ job per partition as one flow (all or nothing) for `sluice worker` processes; the flow's
 * export job writes `_manifest.json` when every partition is done. With `--wait` it follows the
 * workers and ends with the outcome.
 */
export async function exportViaQueue(serviceURL: string, entitySet: string, flags: ExportFlags & PartitionFlags & { queueName?: string }, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const out = resolve(flags.out!);
  // Redis first: a queue that cannot be reached fails before any request to the service.
  await checkQueueReachable(flags.queue!);
  await prepareOutDir(out);
  const started = new Date();
  // The plan's reads take the fleet's token and rate budget too.
  const tokenCache = fleetTokenCache(flags.queue!, terminal);
  const rates = new FleetRates(flags.queue!);
  const od = await openService(serviceURL, flags, terminal, signal, 'auto', { tokenCache, rateLimit: rates.of(serviceURL, flags.rate, flags.burst) }).catch(async (error: unknown) => {
    rates.close();
    await tokenCache.close();
    throw error;
  });
  let payloads: { name: string; payload: PartPayload }[];
  let head: ExportPayload['head'];
  try {
    const plan = await planExport(buildQuery(od, entitySet, flags), flags, signal);
    if (plan.note !== undefined && !flags.quiet) terminal.note(`sluice: ${plan.note}`);
    head = manifestHead(serviceURL, plan, flags, started, 'queue');
    const query: QueryFlags = { filter: flags.filter, select: flags.select, expand: flags.expand, search: flags.search, param: flags.param };
    payloads = plan.partitions.map((p) => {
      const file = partFileName(p.index, flags.format);
      return {
        name: `${file}${p.filter === undefined ? '' : ` (${p.filter})`}`,
        payload: {
          service: serviceURL, entitySet, odataVersion: flags.odataVersion ?? 'auto', query, format: flags.format, csvRaw: flags.csvRaw === true, compression: flags.compression, pageSize: flags.pageSize,
          out, file, range: p.filter ?? null, lower: p.lower ?? null, upper: p.upper ?? null, nulls: p.nulls, rate: flags.rate, burst: flags.burst,
        },
      };
    });
  } finally {
    await od.close();
    rates.close();
    await tokenCache.close();
  }
  const queue = flags.queueName ?? QUEUE_NAME;
  const enqueued = await enqueueExport<PartPayload, ExportPayload>({ redis: flags.queue!, queue, partitions: payloads, export: { out, head }, attempts: flags.attempts, backoff: flags.retryBackoff });
  if (!flags.quiet) terminal.note(`sluice: enqueued ${enqueued.partitions} partitions of ${entitySet} as export ${enqueued.exportId} (queue ${queue}); run \`sluice worker\` to read them`);
  if (!flags.wait) return;
  let shown = -1;
  const manifest = await waitForExport<{ records: number }>({
    redis: flags.queue!, queue, exportId: enqueued.exportId, signal,
    onProgress: (done, of) => {
      if (flags.quiet || done === shown) return;
      shown = done;
      terminal.note(`sluice: ${done} of ${of} partitions done`);
    },
  }).catch((error: unknown) => {
    if (signal.aborted && !flags.quiet) terminal.note(`sluice: stopped waiting; export ${enqueued.exportId} goes on in the workers`);
    throw error;
  });
  if (!flags.quiet) {
    terminal.note(`sluice: exported ${recordsText(manifest.records)} of ${entitySet} in ${enqueued.partitions} partitions to ${join(out, MANIFEST_FILE)} ` +
      `in ${formatSeconds((Date.now() - started.getTime()) / 1000)}`);
  }
}
