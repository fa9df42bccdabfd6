import { setMaxListeners } from 'node:events';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '@sluice/core';
import { partitionQuery, planPartitions, type Partition, type PartitionPlan, type Query } from '@sluice/odata';
import { UsageError } from './errors.js';
import type { ExportFlags } from './export.js';
import { manifestHead, manifestPart, MANIFEST_FILE, writeManifest, type ManifestPart } from './manifest.js';
import { writePartFile } from './part-file.js';
import { PART_FILE, partFileName } from './part-names.js';
import { prepareOutDir, rateLimitOf, removeStalePartFiles, type PartitionFlags } from './partition-flags.js';
import { createProgress, formatCount, formatSeconds, recordsText } from './progress.js';
import { buildQuery } from './query-flags.js';
import { openService } from './session.js';
import type { Terminal } from './terminal.js';

/** Partitions read at once when `--parallel` is not given. */
const DEFAULT_PARALLEL = 4;

/** The flag behind each option a partition plan refuses. */
const FLAG_OF: Readonly<Record<string, string>> = { partitionBy: '--partition-by', boundaries: '--boundaries', query: '--partitions', partitions: '--partitions' };

/** A partition plan's ConfigError as a usage error naming the flag (`--partition-by: "Nope" is not ...`), else undefined. */
export function planUsageError(error: unknown): UsageError | undefined {
  if (!(error instanceof ConfigError) || !(error.option in FLAG_OF)) return undefined;
  return new UsageError(`${FLAG_OF[error.option]}: ${error.message.slice(error.option.length + 1)}`);
}

/** The plan of a partitioned export; a bad `--partition-by` is a usage error naming it. */
export async function planExport(base: Query, flags: PartitionFlags, signal: AbortSignal): Promise<PartitionPlan> {
  try {
    return await planPartitions(base, { partitions: flags.partitions ?? 1, by: flags.partitionBy, boundaries: flags.boundaries, signal });
  } catch (error) {
    throw planUsageError(error) ?? error;
  }
}

/** Removes part files of a former run that this plan does not write (after every part is written). */
export async function removeStaleParts(dir: string, keep: ReadonlySet<string>): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(names.filter((n) => PART_FILE.test(n) && !keep.has(n)).map((n) => rm(join(dir, n), { force: true })));
}

/** Runs `work` for every partition, at most `limit` at once; the first failure stops the rest. */
async function eachPartition(partitions: readonly Partition[], limit: number, signal: AbortSignal, work: (p: Partition, signal: AbortSignal) => Promise<void>): Promise<void> {
  const stop = new AbortController();
  const both = AbortSignal.any([signal, stop.signal]);
  // Every request in flight listens to it (and the rate limiter's waits): a few per partition read at once.
  setMaxListeners(4 * limit + 10, both);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const run = async (): Promise<void> => {
    while (next < partitions.length && failure === undefined && !both.aborted) {
      const p = partitions[next++]!;
      try {
        await work(p, both);
      } catch (error) {
        failure ??= { error: signal.aborted ? signal.reason : error };
        stop.abort(failure.error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, partitions.length) }, run));
  if (failure !== undefined) throw failure.error;
  if (signal.aborted) throw signal.reason;
}

/**
 * `sluice export --partitions N --out <dir>`: splits the set into ranges (see planPartitions), reads
 * `--parallel` of them at once on one client (one rate limit, one token), writes each to its own
 * complete-or-nothing file and `_manifest.json` last. A partition that fails stops the others; the
 * files of partitions already done stay, the manifest is not written.
 */
export async function exportPartitioned(serviceURL: string, entitySet: string, flags: ExportFlags & PartitionFlags, terminal: Terminal, signal: AbortSignal): Promise<void> {
  const out = flags.out!;
  const rateLimit = rateLimitOf(flags);
  await prepareOutDir(out);
  for (const stale of await removeStalePartFiles(out)) terminal.debug(`removed ${stale}, left by an export that was killed`);
  const started = new Date();
  const od = await openService(serviceURL, flags, terminal, signal, 'auto', { rateLimit });
  try {
    const base = buildQuery(od, entitySet, flags);
    const plan = await planExport(base, flags, signal);
    if (plan.note !== undefined && !flags.quiet) terminal.note(`sluice: ${plan.note}`);
    terminal.debug(`partitions: ${plan.partitions.length} on ${plan.property} (${plan.boundaries}, ${plan.requests} requests)`);
    const progress = createProgress(flags.quiet ? 'never' : flags.progress, terminal.stderr);
    if (plan.count !== undefined) progress.setTotal(plan.count);
    let records = 0;
    const parts: ManifestPart[] = [];
    try {
      await eachPartition(plan.partitions, flags.parallel ?? DEFAULT_PARALLEL, signal, async (p, partSignal) => {
        const file = partFileName(p.index, flags.format);
        const n = await writePartFile(od, entitySet, partitionQuery(base, p), join(out, file), flags, terminal, partSignal, (added) => {
          records += added;
          progress.update(records);
        });
        parts.push(manifestPart(p, file, n));
        terminal.debug(`partition ${p.index}: ${recordsText(n)} to ${file}`);
      });
    } catch (error) {
      progress.stop();
      if (!flags.quiet) terminal.note(`sluice: ${parts.length} of ${plan.partitions.length} partitions written to ${out}; no ${MANIFEST_FILE}, the export is incomplete`);
      throw error;
    }
    progress.stop();
    await removeStaleParts(out, new Set(parts.map((p) => p.file)));
    const manifest = await writeManifest(join(out, MANIFEST_FILE), manifestHead(serviceURL, plan, flags, started, 'process'), parts);
    if (!flags.quiet) {
      const seconds = (Date.now() - started.getTime()) / 1000;
      terminal.note(`sluice: exported ${recordsText(manifest.records)} of ${entitySet} in ${plan.partitions.length} partitions to ${out} in ${formatSeconds(seconds)} ` +
        `(${formatCount(manifest.records / Math.max(seconds, 0.001))} records/s)`);
    }
  } finally {
    await od.close();
  }
}
