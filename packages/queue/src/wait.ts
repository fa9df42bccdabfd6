import { Job, Queue, QueueEvents } from 'bullmq';
import { blockingConnection } from './connection.js';
import { DEFAULT_QUEUE, ExportFailedError, exportJobId, partitionJobId, type FailedPartition, type PartitionJobData } from './jobs.js';

/** Options of {@link waitForExport}. */
export interface WaitForExportOptions {
  redis: string;
  queue?: string | undefined;
  exportId: string;
  /** Called as partitions finish: how many are done of how many. */
  onProgress?: ((done: number, of: number) => void) | undefined;
  /** Stops waiting (the export goes on in the workers). */
  signal?: AbortSignal | undefined;
}

/** The partitions of an export that failed for good, with their last error. */
async function failedPartitions(queue: Queue, exportId: string, of: number): Promise<FailedPartition[]> {
  const out: FailedPartition[] = [];
  for (let i = 1; i <= of; i++) {
    const job = await Job.fromId(queue, partitionJobId(exportId, i));
    if (job === undefined || !(await job.isFailed())) continue;
    const data = job.data as PartitionJobData;
    out.push({ index: i, name: data.name, reason: job.failedReason, attempts: job.attemptsMade });
  }
  return out;
}

/**
 * Follows an export enqueued with {@link enqueueExport} until its export job is done and resolves with
 * what `finishExport` returned; rejects with {@link ExportFailedError} naming the partitions that failed
 * for good (every attempt spent) and their last error.
 */
export async function waitForExport<F = unknown>(options: WaitForExportOptions): Promise<F> {
  const name = options.queue ?? DEFAULT_QUEUE;
  const connection = blockingConnection(options.redis);
  const queue = new Queue(name, { connection });
  const eventConnection = blockingConnection(options.redis);
  const events = new QueueEvents(name, { connection: eventConnection });
  try {
    await events.waitUntilReady();
    const parent = await Job.fromId(queue, exportJobId(options.exportId));
    if (parent === undefined) throw new ExportFailedError(options.exportId, [], `no export ${options.exportId} in queue ${name}`);
    const of = (parent.data as { partitions: number }).partitions;
    const prefix = `${options.exportId}-p`;
    const done = new Set<string>();
    events.on('completed', ({ jobId }) => {
      if (!jobId.startsWith(prefix) || done.has(jobId)) return;
      done.add(jobId);
      options.onProgress?.(done.size, of);
    });
    const counts = await parent.getDependenciesCount({ processed: true });
    options.onProgress?.(counts.processed ?? 0, of);
    const aborted = new Promise<never>((_, reject) => {
      if (options.signal?.aborted) reject(options.signal.reason);
      options.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true });
    });
    try {
      return await Promise.race([parent.waitUntilFinished(events) as Promise<F>, aborted]);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const failed = await failedPartitions(queue, options.exportId, of);
      throw new ExportFailedError(options.exportId, failed, error instanceof Error ? error.message : String(error));
    }
  } finally {
    await events.close().catch(() => undefined);
    await queue.close().catch(() => undefined);
    connection.disconnect();
    eventConnection.disconnect();
  }
}
