// A snapshot load read in partitions: the set is split into `$filter` ranges (@sluice/odata's planPartitions),
// `parallel` of them are read at once, and their pages are handed one at a time, batch by batch as they arrive,
// to the load, which writes each page in its own transaction to the staging table on its one connection. The staging table replaces the
// table only after the last page of the last partition, so the load stays complete or nothing.
import { setMaxListeners } from 'node:events';
import { ConfigError } from '@sluice/core';
import { partitionQuery, planPartitions, type PageBatch, type PartitionPlan, type Query } from '@sluice/odata';
import { SinkError } from '../errors.js';

/** Partitions read at once when `parallel` is not given. */
export const DEFAULT_PARALLEL = 4;

/** Most partitions read at once. */
const MAX_PARALLEL = 256;

/** The partition options of a sync (see SyncOptions). */
export interface PartitionSettings {
  mode?: 'auto' | 'delta' | 'snapshot' | undefined;
  partitions?: number | undefined;
  partitionBy?: string | undefined;
  boundaries?: 'quantiles' | 'minmax' | undefined;
  parallel?: number | undefined;
}

/** Refuses partition options that cannot apply, before anything is opened or read. */
export function checkPartitionSettings(o: PartitionSettings): void {
  const given = [o.partitionBy !== undefined && 'partitionBy', o.boundaries !== undefined && 'boundaries', o.parallel !== undefined && 'parallel'].filter(Boolean);
  if (o.partitions === undefined) {
    if (given.length) throw new SinkError(`${given.join(', ')} need${given.length === 1 ? 's' : ''} partitions`, 'partition');
    return;
  }
  if (o.mode !== 'snapshot') {
    throw new SinkError(`partitions load a snapshot (a staging table swapped in at the end): use mode snapshot, got ${o.mode ?? 'auto'}`, 'mode');
  }
  if (o.parallel !== undefined && (!Number.isSafeInteger(o.parallel) || o.parallel < 1 || o.parallel > MAX_PARALLEL)) {
    throw new SinkError(`parallel must be an integer from 1 to ${MAX_PARALLEL}, got ${String(o.parallel)}`, 'partition');
  }
}

/** The partitions of `query`; a plan the options cannot make (a property not in the set or without order) is a SinkError `partition`. */
export async function planSnapshot(query: Query<unknown>, o: PartitionSettings, signal: AbortSignal | undefined): Promise<PartitionPlan> {
  try {
    return await planPartitions(query, { partitions: o.partitions ?? 1, by: o.partitionBy, boundaries: o.boundaries, signal });
  } catch (error) {
    if (error instanceof ConfigError) throw new SinkError(`cannot split the load into partitions: ${error.message}`, 'partition', { cause: error });
    throw error;
  }
}

/** An item read by a partition, waiting for the load to take it. */
interface Ready<T> {
  item: PageBatch<T>;
  /** The partition's reader. */
  reader: number;
  /** Lets the partition read its next item. */
  taken: () => void;
}

/**
 * The `pageBatches()` items of every partition of `plan`, `parallel` partitions read at once, yielded one at a
 * time as they arrive, each page's items together (from its first batch to its end, no other partition's in
 * between: the load writes a page in one transaction). A partition reads its next item once its last one was
 * taken, so at most `parallel` batches wait, not pages. The first failure stops every partition and is thrown; a
 * consumer that stops (break, or its own error) stops them too, and the generator ends once they have.
 */
export async function* partitionBatches<T>(query: Query<T>, plan: PartitionPlan, parallel: number, signal: AbortSignal | undefined): AsyncGenerator<PageBatch<T>> {
  const stop = new AbortController();
  const both = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
  // Every request in flight listens to it: one or two per partition read at once.
  setMaxListeners(2 * MAX_PARALLEL + 10, both);
  const ready: Ready<T>[] = [];
  let wake: (() => void) | undefined;
  let failure: { error: unknown } | undefined;
  let next = 0;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const read = async (reader: number): Promise<void> => {
    while (next < plan.partitions.length && failure === undefined && !both.aborted) {
      const part = plan.partitions[next++]!;
      for await (const item of partitionQuery(query, part).pageBatches({ signal: both })) {
        // A stopped load takes nothing more (an item read ahead may still come): nothing may wait to be taken.
        if (failure !== undefined || both.aborted) return;
        await new Promise<void>((taken) => {
          ready.push({ item, reader, taken });
          notify();
        });
      }
    }
  };
  let running = Math.min(parallel, plan.partitions.length);
  const readers = Array.from({ length: running }, (_, reader) => read(reader)
    .catch((error: unknown) => {
      failure ??= { error: signal?.aborted ? signal.reason : error };
      stop.abort(failure.error);
    })
    .finally(() => {
      running--;
      notify();
    }));
  // The reader whose page is under way: only its items are taken until the page's end.
  let current: number | undefined;
  try {
    for (;;) {
      if (failure !== undefined) throw failure.error;
      const at = current === undefined ? 0 : ready.findIndex((r) => r.reader === current);
      if (at >= 0 && at < ready.length) {
        const [{ item, reader, taken }] = ready.splice(at, 1) as [Ready<T>];
        current = item.page === undefined ? reader : undefined;
        taken();
        yield item;
        continue;
      }
      if (running === 0) break;
      await new Promise<void>((resolve) => { wake = resolve; });
    }
    if (signal?.aborted) throw signal.reason;
  } finally {
    if (!stop.signal.aborted) stop.abort(new Error('the partitioned load stopped'));
    for (const item of ready.splice(0)) item.taken();
    await Promise.allSettled(readers);
  }
}
