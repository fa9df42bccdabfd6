import { readdir, stat, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { RateLimitOptions } from '@sluice/core';
import { UsageError } from './errors.js';
import { duration } from './limits.js';
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

function positive(max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > max) throw new InvalidArgumentError(`expected an integer from 1 to ${max}`);
    return Number(text);
  };
}

/** Longest `--retry-backoff`: one hour. */
const MAX_BACKOFF_MS = 3_600_000;

/** `--retry-backoff`: a duration from 1 ms to an hour, in whole ms. */
function backoff(text: string): number {
  const ms = duration(text);
  if (ms < 1 || ms > MAX_BACKOFF_MS || !Number.isInteger(ms)) throw new InvalidArgumentError('expected a duration from 1ms to 1h in whole ms, such as 500ms, 2s or 1m');
  return ms;
}

function rate(text: string): number {
  const n = Number(text.trim());
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !(n > 0)) throw new InvalidArgumentError('expected requests per second, such as 20 or 2.5');
  return n;
}

/** Adds `--partitions`, `--partition-by`, `--boundaries`, `--parallel`, `--rate` and `--burst` (export and sync). */
export function rangeOptions(command: Command, partitionsHelp: string): Command {
  return command
    .option('--partitions <n>', partitionsHelp, positive(10_000))
    .option('--partition-by <property>', 'with --partitions: orderable property to split on (default: the single key)')
    .addOption(new Option('--boundaries <how>', 'with --partitions: quantiles ($count + one read per boundary, even partitions) or minmax (two reads, equal widths; integers)').choices(['quantiles', 'minmax']))
    .option('--parallel <k>', 'with --partitions: read k partitions at once (default 4), sharing the rate limit and token', positive(256))
    .option('--rate <n>', 'at most n requests per second in all (every partition, every worker)', rate)
    .option('--burst <n>', 'with --rate: requests that may go at once after a quiet spell (default 1)', positive(10_000));
}

/** Adds the partition flags to `sluice export`. */
export function partitionOptions(command: Command): Command {
  return rangeOptions(command, 'split the set into n ranges of --partition-by, one file each in the --out directory (part-00001.<format>, then _manifest.json)')
    .option('--queue <redis-url>', 'with --partitions: enqueue one BullMQ job per partition for `sluice worker` processes instead of reading here')
    .option('--queue-name <name>', 'with --queue: the BullMQ queue (default sluice-export)')
    .option('--attempts <n>', 'with --queue: attempts per partition, the first included (default 5)', positive(100))
    .option('--retry-backoff <duration>', 'with --queue: wait before the first retry of a failed partition, doubled each retry: 500ms, 2s, 1m (default 2s)', backoff)
    .option('--wait', 'with --queue: follow the workers and exit with the outcome');
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
