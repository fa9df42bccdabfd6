/** Version of the job data this package writes and reads; a queue holding another version is refused. */
export const QUEUE_DATA_VERSION = 1;

/** Default BullMQ queue name of partitioned exports. */
export const DEFAULT_QUEUE = 'sluice-export';

/** Job names: one `partition` job per partition, children of one `export` job. */
export const PARTITION_JOB = 'partition';
export const EXPORT_JOB = 'export';

/** The data of a partition job: what to read, as the enqueuer's payload says, and where it stands. */
export interface PartitionJobData<P = unknown> {
  /** {@link QUEUE_DATA_VERSION} of the enqueuer. */
  v: number;
  exportId: string;
  /** 1-based partition number, and how many the export has. */
  index: number;
  of: number;
  /** How failures and progress name the partition, such as `part-00003 (ID ge 76 and ID lt 151)`. */
  name: string;
  payload: P;
}

/** The data of the export (parent) job, which runs once every partition is done. */
export interface ExportJobData<M = unknown> {
  v: number;
  exportId: string;
  partitions: number;
  payload: M;
}

/** The BullMQ job id of partition `index` of an export (no `:`, which BullMQ keeps for its keys). */
export function partitionJobId(exportId: string, index: number): string {
  return `${exportId}-p${String(index).padStart(5, '0')}`;
}

/** The BullMQ job id of an export's parent job. */
export function exportJobId(exportId: string): string {
  return `${exportId}-export`;
}

/** Redis could not be reached or refused a command: nothing was enqueued. */
export class QueueUnavailableError extends Error {
  constructor(readonly redisURL: string, options?: { cause?: unknown }) {
    const reason = options?.cause instanceof Error ? options.cause.message : String(options?.cause ?? 'no answer');
    super(`Redis at ${redisURL} is not reachable (${reason}); nothing was enqueued`, options);
    this.name = 'QueueUnavailableError';
  }
}

/** The queue holds jobs (or a version mark) of another data version: an older or newer sluice. */
export class QueueVersionError extends Error {
  constructor(readonly queue: string, readonly found: number | string) {
    super(`queue ${queue} holds export jobs of data version ${found}, this sluice writes and reads version ${QUEUE_DATA_VERSION}; nothing was enqueued`);
    this.name = 'QueueVersionError';
  }
}

/** A partition that failed for good (every attempt), as {@link waitForExport} reports it. */
export interface FailedPartition {
  index: number;
  name: string;
  reason: string;
  attempts: number;
}

/** Some partitions failed for good: the export has no manifest. */
export class ExportFailedError extends Error {
  constructor(readonly exportId: string, readonly failed: readonly FailedPartition[], reason?: string) {
    const names = failed.map((f) => `${f.name} after ${f.attempts} attempt${f.attempts === 1 ? '' : 's'}: ${f.reason}`);
    super(failed.length
      ? `export ${exportId} failed: ${failed.length} partition${failed.length === 1 ? '' : 's'} failed for good (${names.join('; ')})`
      : `export ${exportId} failed: ${reason ?? 'the export job failed'}`);
    this.name = 'ExportFailedError';
  }
}
