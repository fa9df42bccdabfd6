import { randomUUID } from 'node:crypto';
import { FlowProducer, Queue } from 'bullmq';
import { eagerConnection, shownURL } from './connection.js';
import {
  DEFAULT_QUEUE, EXPORT_JOB, exportJobId, PARTITION_JOB, partitionJobId, QUEUE_DATA_VERSION, QueueUnavailableError, QueueVersionError,
  type ExportJobData, type PartitionJobData,
} from './jobs.js';

/** Options of {@link enqueueExport}. */
export interface EnqueueExportOptions<P, M> {
  /** `redis://host:6379` (or `rediss://`) of the queue. */
  redis: string;
  /** BullMQ queue name; default `sluice-export`. */
  queue?: string | undefined;
  /** Id of the export (job ids derive from it); default a random UUID. */
  exportId?: string | undefined;
  /** One entry per partition: how failures name it, and what the worker needs to read it (JSON). */
  partitions: readonly { name: string; payload: P }[];
  /** What the export job needs to finish the export once every partition is done (JSON). */
  export: M;
  /** Attempts per partition, the first included; default 5. */
  attempts?: number | undefined;
  /** First retry delay in ms, doubled each time; default 2000. */
  backoff?: number | undefined;
  /** Connect timeout in ms; default 5000. */
  connectTimeout?: number | undefined;
}

/** What {@link enqueueExport} enqueued. */
export interface EnqueuedExport {
  exportId: string;
  queue: string;
  /** BullMQ id of the export job (the flow's parent). */
  jobId: string;
  partitions: number;
}

/**
 * Checks that Redis at `url` answers (a connection and a PING), before work that the enqueue would waste:
 * a {@link QueueUnavailableError} when it does not.
 */
export async function checkQueueReachable(url: string, timeoutMs = 5000): Promise<void> {
  try {
    const redis = await eagerConnection(url, timeoutMs);
    try {
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  } catch (error) {
    throw new QueueUnavailableError(shownURL(url), { cause: error });
  }
}

/** Versions of the export jobs waiting in the queue (those not yet done). */
async function versionsInQueue(queue: Queue): Promise<Set<unknown>> {
  const jobs = await queue.getJobs(['wait', 'delayed', 'waiting-children', 'prioritized', 'active'], 0, 99);
  return new Set(jobs.filter((j) => j.name === PARTITION_JOB || j.name === EXPORT_JOB).map((j) => (j.data as { v?: unknown } | undefined)?.v));
}

/**
 * Enqueues a partitioned export as one BullMQ flow: an `export` job whose children are the `partition`
 * jobs, added in one Redis transaction (all of them or none). Workers ({@link startExportWorker}) read the
 * partitions, each retried with exponential backoff and given to another worker when its worker dies
 * (stalled-job handling); the export job runs once all are done. Redis that cannot be reached is a
 * {@link QueueUnavailableError}, a queue holding jobs of another data version a {@link QueueVersionError}:
 * nothing is enqueued in either case.
 */
export async function enqueueExport<P, M>(options: EnqueueExportOptions<P, M>): Promise<EnqueuedExport> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const exportId = options.exportId ?? randomUUID();
  const attempts = options.attempts ?? 5;
  if (!Number.isSafeInteger(attempts) || attempts < 1) throw new RangeError(`attempts must be a positive integer, got ${attempts}`);
  const backoff = options.backoff ?? 2000;
  if (!Number.isSafeInteger(backoff) || backoff < 0) throw new RangeError(`backoff must be a whole number of ms, 0 or more, got ${backoff}`);
  if (options.partitions.length === 0) throw new RangeError('an export needs at least one partition');
  let redis;
  try {
    redis = await eagerConnection(options.redis, options.connectTimeout ?? 5000);
  } catch (error) {
    throw new QueueUnavailableError(shownURL(options.redis), { cause: error });
  }
  const queue = new Queue(name, { connection: redis });
  const flow = new FlowProducer({ connection: redis });
  try {
    const versionKey = `bull:${name}:sluice-data-version`;
    const marked = await redis.get(versionKey);
    if (marked !== null && marked !== String(QUEUE_DATA_VERSION)) throw new QueueVersionError(name, marked);
    const other = [...await versionsInQueue(queue)].find((v) => v !== QUEUE_DATA_VERSION);
    if (other !== undefined) throw new QueueVersionError(name, String(other));
    await redis.set(versionKey, String(QUEUE_DATA_VERSION));
    const of = options.partitions.length;
    const parent: ExportJobData<M> = { v: QUEUE_DATA_VERSION, exportId, partitions: of, payload: options.export };
    const children = options.partitions.map((p, i) => {
      const data: PartitionJobData<P> = { v: QUEUE_DATA_VERSION, exportId, index: i + 1, of, name: p.name, payload: p.payload };
      return {
        name: PARTITION_JOB, queueName: name, data,
        opts: {
          jobId: partitionJobId(exportId, i + 1), attempts, backoff: { type: 'exponential', delay: backoff },
          failParentOnFailure: true, removeOnComplete: false, removeOnFail: false,
        },
      };
    });
    const tree = await flow.add({ name: EXPORT_JOB, queueName: name, data: parent, opts: { jobId: exportJobId(exportId), attempts: 3, backoff: { type: 'exponential', delay: 1000 } }, children });
    return { exportId, queue: name, jobId: tree.job.id ?? exportJobId(exportId), partitions: of };
  } catch (error) {
    if (error instanceof QueueVersionError) throw error;
    throw new QueueUnavailableError(shownURL(options.redis), { cause: error });
  } finally {
    await flow.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    redis.disconnect();
  }
}
