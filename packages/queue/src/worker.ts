import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { blockingConnection } from './connection.js';
import { DEFAULT_QUEUE, EXPORT_JOB, PARTITION_JOB, QUEUE_DATA_VERSION, type ExportJobData, type PartitionJobData } from './jobs.js';

/** What a partition's run gets besides its data. */
export interface PartitionContext {
  /** Aborted when the worker stops; the partition is then retried (by another worker). */
  signal: AbortSignal;
  /** 1 for the first attempt. */
  attempt: number;
  /** Reports records written so far (shown by `waitForExport`'s progress). */
  progress(records: number): void;
}

/** Options of {@link startExportWorker}. */
export interface ExportWorkerOptions<P, M, R> {
  /** `redis://host:6379` of the queue. */
  redis: string;
  /** BullMQ queue name; default `sluice-export`. */
  queue?: string | undefined;
  /** Partitions this worker reads at once; default 1. */
  concurrency?: number | undefined;
  /**
   * How long a partition's lock lasts without renewal (ms, default 30,000): a worker that dies holds
   * its partition this long before the stalled-job check gives it to another worker.
   */
  lockDuration?: number | undefined;
  /** How often this worker looks for stalled partitions (ms, default 30,000). */
  stalledInterval?: number | undefined;
  /** How often a partition may stall (its worker died) before it fails; default 2. */
  maxStalledCount?: number | undefined;
  /** Reads one partition and writes its output from scratch; resolves with a JSON result (such as its record count). */
  runPartition(job: PartitionJobData<P>, context: PartitionContext): Promise<R>;
  /** Runs once every partition is done, with their results by partition index (such as writing a manifest). */
  finishExport(job: ExportJobData<M>, results: ReadonlyMap<number, R>): Promise<unknown>;
  /** Told about each failed attempt of a partition, and whether BullMQ will try it again. */
  onFailure?: ((job: PartitionJobData<P>, error: Error, willRetry: boolean) => void) | undefined;
}

/** A running worker. */
export interface ExportWorker {
  /** Stops taking partitions, aborts those running (they are retried elsewhere) and closes the connection. */
  close(): Promise<void>;
}

function checkVersion(job: Job): void {
  const v = (job.data as { v?: unknown } | undefined)?.v;
  if (v !== QUEUE_DATA_VERSION) {
    throw new UnrecoverableError(`job ${job.id ?? '?'} has data version ${String(v)}; this worker reads version ${QUEUE_DATA_VERSION} (enqueued by another sluice version)`);
  }
}

/** Partition index from a child key `bull:<queue>:<exportId>-p00003`. */
function indexOfChild(key: string): number {
  const m = /-p(\d+)$/.exec(key);
  return m ? Number(m[1]) : NaN;
}

/**
 * Starts a BullMQ worker for partitioned exports enqueued with {@link enqueueExport}: it takes
 * `partition` jobs (`concurrency` at once) and runs `runPartition`, and the `export` job once all are
 * done, with their results. A worker that dies mid-partition stops renewing its lock; after
 * `lockDuration` another worker's stalled-job check puts the partition back and another worker runs it
 * again from the start. Jobs of another data version fail at once (no retry).
 */
export function startExportWorker<P, M, R>(options: ExportWorkerOptions<P, M, R>): ExportWorker {
  const connection = blockingConnection(options.redis);
  const running = new Set<AbortController>();
  const processor = async (job: Job, _token?: string, bullSignal?: AbortSignal): Promise<unknown> => {
    checkVersion(job);
    if (job.name === PARTITION_JOB) {
      const controller = new AbortController();
      running.add(controller);
      const signal = bullSignal === undefined ? controller.signal : AbortSignal.any([controller.signal, bullSignal]);
      try {
        return await options.runPartition(job.data as PartitionJobData<P>, {
          signal, attempt: job.attemptsMade + 1, progress: (records) => { job.updateProgress(records).catch(() => undefined); },
        });
      } finally {
        running.delete(controller);
      }
    }
    if (job.name === EXPORT_JOB) {
      const values = await job.getChildrenValues<R>();
      const results = new Map<number, R>(Object.entries(values).map(([key, value]) => [indexOfChild(key), value]));
      return options.finishExport(job.data as ExportJobData<M>, results);
    }
    throw new UnrecoverableError(`unknown job name ${job.name}`);
  };
  const worker = new Worker(options.queue ?? DEFAULT_QUEUE, processor, {
    connection,
    concurrency: options.concurrency ?? 1,
    lockDuration: options.lockDuration ?? 30_000,
    stalledInterval: options.stalledInterval ?? 30_000,
    maxStalledCount: options.maxStalledCount ?? 2,
  });
  worker.on('error', () => undefined); // connection trouble: ioredis reconnects, jobs stall and move on
  worker.on('failed', (job, error) => {
    if (job?.name !== PARTITION_JOB || options.onFailure === undefined) return;
    const willRetry = !(error instanceof UnrecoverableError) && job.attemptsMade < (job.opts.attempts ?? 1);
    options.onFailure(job.data as PartitionJobData<P>, error, willRetry);
  });
  return {
    async close() {
      for (const c of running) c.abort(new Error('the worker stopped'));
      await worker.close();
      connection.disconnect();
    },
  };
}
