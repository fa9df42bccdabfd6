import { readdir, stat, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { RateLimitOptions } from '@sluice/core';
import { UsageError } from './errors.js';
import { MANIFEST_FILE } from './manifest.js';
import { checkOutFile, removeStalePartials } from './out-file.js';
import { PART_FILE } from './part-names.js';

/** Flags of `sluice export` for partitioned exports (in one process, or over a queue of workers). */
export interface PartitionFlags {
  partitions?: number;
  partitionBy?: string;
  boundaries?: 'quantiles' | 'minmax';
  parallel?: number;
  /** Requests per second for the whole export (every partition, every worker). */
  rate?: number;
  burst?: number;
  queue?: string;
  queueName?: string;
  attempts?: number;
  /** First retry delay of a failed partition in ms (doubled each retry). */
  retryBackoff?: number;
  wait?: boolean;
}

/** The core rate limit of `--rate`/`--burst`, if given. */
export function rateLimitOf(flags: PartitionFlags): RateLimitOptions | undefined {
  if (flags.burst !== undefined && flags.rate === undefined) throw new UsageError('--burst needs --rate');
  return flags.rate === undefined ? undefined : { requestsPerSecond: flags.rate, burst: flags.burst ?? 1, maxQueue: 100_000 };
}

/** Flags a partitioned export cannot take, and partition flags without `--partitions`. */
export function checkPartitionFlags(flags: PartitionFlags & { out?: string; deltaState?: string; top?: number; skip?: number; orderby?: string }): void {
  const partitionOnly = [
    flags.partitionBy !== undefined && '--partition-by', flags.boundaries !== undefined && '--boundaries', flags.parallel !== undefined && '--parallel',
    flags.queue !== undefined && '--queue', flags.queueName !== undefined && '--queue-name', flags.attempts !== undefined && '--attempts',
    flags.retryBackoff !== undefined && '--retry-backoff', flags.wait === true && '--wait',
  ].filter(Boolean);
  if (flags.partitions === undefined) {
    if (partitionOnly.length) throw new UsageError(`${partitionOnly.join(', ')} need${partitionOnly.length === 1 ? 's' : ''} --partitions`);
    return;
  }
  if (flags.out === undefined || flags.out === '-') throw new UsageError('--partitions writes one file per partition: give --out <directory>');
  const refused = [flags.deltaState !== undefined && '--delta-state', flags.top !== undefined && '--top', flags.skip !== undefined && '--skip', flags.orderby !== undefined && '--orderby'].filter(Boolean);
  if (refused.length) throw new UsageError(`--partitions cannot be combined with ${refused.join(', ')}`, 'partitions are ranges read independently; filter with --filter instead');
  if (flags.wait && flags.queue === undefined) throw new UsageError('--wait needs --queue');
  if (flags.attempts !== undefined && flags.queue === undefined) throw new UsageError('--attempts needs --queue');
  if (flags.retryBackoff !== undefined && flags.queue === undefined) throw new UsageError('--retry-backoff needs --queue');
  if (flags.parallel !== undefined && flags.queue !== undefined) throw new UsageError('--parallel reads here; with --queue the workers read (sluice worker --concurrency)');
}

/**
 * The `--out` directory of a partitioned export, created if missing; a file there is refused, and the
 * manifest's place is checked as `--out <file>` is. A former run's `_manifest.json` is removed first,
 * so the directory never looks complete while parts are written.
 */
export async function prepareOutDir(out: string): Promise<void> {
  const info = await stat(out).catch((error: NodeJS.ErrnoException) => { if (error.code === 'ENOENT') return undefined; throw error; });
  if (info !== undefined && !info.isDirectory()) throw new UsageError(`--out ${out} is a file; with --partitions it names a directory for the part files`);
  await mkdir(out, { recursive: true });
  await checkOutFile(join(out, MANIFEST_FILE));
  await rm(join(out, MANIFEST_FILE), { force: true });
}

/** Removes the temporary part files that killed exports on this host left in `dir` (their process is gone). */
export async function removeStalePartFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const parts = new Set(names.map((n) => n.split('.sluice-partial-')[0]!).filter((n) => PART_FILE.test(n)));
  return (await Promise.all([...parts].map((n) => removeStalePartials(join(dir, n))))).flat();
}
