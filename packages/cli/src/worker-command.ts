import { join } from 'node:path';
import type { ODataClient } from '@sluice/odata';
import { startExportWorker, type ExportJobData, type PartitionJobData } from '@sluice/queue';
import type { ExportFlags } from './export.js';
import { FleetRates, fleetTokenCache } from './fleet.js';
import { MANIFEST_FILE, manifestPart, writeManifest, type ManifestPart } from './manifest.js';
import { writePartFile } from './part-file.js';
import { removeStaleParts } from './partitioned-export.js';
import { removeStalePartFiles } from './partition-flags.js';
import { recordsText } from './progress.js';
import { buildQuery } from './query-flags.js';
import { checkServiceURL, openService, type ConnectionFlags } from './session.js';
import type { Terminal } from './terminal.js';
import { QUEUE_NAME, type ExportPayload, type PartPayload } from './queue-export.js';

/** Flags of `sluice worker`. */
export interface WorkerFlags extends ConnectionFlags {
  concurrency?: number;
  queueName?: string;
  lockDuration?: number;
  stalledInterval?: number;
  quiet?: boolean;
}

/**
 * `sluice worker <redis-url>`: reads partitions of exports enqueued with `sluice export --queue` until
 * Ctrl-C or SIGTERM, `--concurrency` at once. Credentials come from this worker's own flags and
 * environment; OAuth tokens are shared by every worker through Redis (one token request for the fleet),
 * as is the export's `--rate`. A partition is written from scratch to a temporary file and renamed, so a
 * retried one (its worker died) replaces nothing half-written.
 */
export async function runWorker(redisURL: string, flags: WorkerFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const tokenCache = fleetTokenCache(redisURL, terminal);
  const rates = new FleetRates(redisURL);
  const say = (text: string): void => { if (!flags.quiet) terminal.note(`sluice worker: ${text}`); };
  // One client per service, version and budget for all the partitions this worker reads: $metadata and
  // connections are set up once, not per partition.
  const clients = new Map<string, Promise<ODataClient>>();
  const clientFor = (p: PartPayload): Promise<ODataClient> => {
    const key = JSON.stringify([p.service, p.odataVersion, p.rate, p.burst]);
    let od = clients.get(key);
    if (od === undefined) {
      od = openService(p.service, { ...flags, odataVersion: p.odataVersion }, terminal, signal, 'auto', { rateLimit: rates.of(p.service, p.rate, p.burst), tokenCache });
      od.catch(() => clients.delete(key));
      clients.set(key, od);
    }
    return od;
  };
  const worker = startExportWorker<PartPayload, ExportPayload, ManifestPart>({
    redis: redisURL, queue: flags.queueName ?? QUEUE_NAME, concurrency: flags.concurrency ?? 1,
    lockDuration: flags.lockDuration, stalledInterval: flags.stalledInterval,
    runPartition: (job, ctx) => runPartition(job, ctx.signal, terminal, clientFor, ctx.progress).then((part) => {
      say(`${job.name}: ${recordsText(part.records)} (attempt ${ctx.attempt})`);
      return part;
    }),
    finishExport: (job, results) => finishExport(job, results).then((records) => {
      say(`export ${job.exportId}: ${recordsText(records)} in ${results.size} partitions, ${join(job.payload.out, MANIFEST_FILE)} written`);
      return { records };
    }),
    onFailure: (job, error, willRetry) => say(`${job.name} failed: ${error.message.split('\n')[0]}${willRetry ? ' (will be retried)' : ''}`),
  });
  say(`waiting for partitions on queue ${flags.queueName ?? QUEUE_NAME} (concurrency ${flags.concurrency ?? 1})`);
  await new Promise<void>((done) => {
    if (signal.aborted) done();
    signal.addEventListener('abort', () => done(), { once: true });
  });
  await worker.close();
  await Promise.all([...clients.values()].map((od) => od.then((c) => c.close(), () => undefined)));
  rates.close();
  await tokenCache.close();
}

async function runPartition(
  job: PartitionJobData<PartPayload>, signal: AbortSignal, terminal: Terminal,
  clientFor: (p: PartPayload) => Promise<ODataClient>, progress: (records: number) => void,
): Promise<ManifestPart> {
  const p = job.payload;
  checkServiceURL(p.service);
  terminal.debug(`${job.name}: started`);
  for (const stale of await removeStalePartFiles(p.out)) terminal.debug(`removed ${stale}, left by a worker that was killed`);
  const od = await clientFor(p);
  const base = buildQuery(od, p.entitySet, p.query);
  const query = p.range === null ? base : base.filter(p.range);
  const exportFlags: ExportFlags = {
    format: p.format, progress: 'never', csvRaw: p.csvRaw, ...(p.compression === undefined ? {} : { compression: p.compression }),
    ...(p.pageSize === undefined ? {} : { pageSize: p.pageSize }), ...p.query,
  };
  let records = 0;
  const n = await writePartFile(od, p.entitySet, query, join(p.out, p.file), exportFlags, terminal, signal, (added) => progress(records += added));
  return manifestPart({ index: job.index, lower: p.lower ?? undefined, upper: p.upper ?? undefined, nulls: p.nulls, filter: p.range ?? undefined }, p.file, n);
}

/** The export job: every part file is written; the manifest goes last, surplus parts of a former run are removed. */
async function finishExport(job: ExportJobData<ExportPayload>, results: ReadonlyMap<number, ManifestPart>): Promise<number> {
  const parts = [...results.values()];
  await removeStaleParts(job.payload.out, new Set(parts.map((p) => p.file)));
  const manifest = await writeManifest(join(job.payload.out, MANIFEST_FILE), job.payload.head, parts);
  return manifest.records;
}

