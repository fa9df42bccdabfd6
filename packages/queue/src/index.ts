/**
 * `@sluice/queue`: partitioned exports spread over BullMQ workers. {@link enqueueExport} adds one job per
 * partition as a BullMQ flow whose parent job finishes the export once all are done; {@link startExportWorker}
 * runs them on any number of machines (a worker that dies mid-partition: the partition goes to another
 * worker); {@link waitForExport} follows an export to its end.
 *
 * @packageDocumentation
 */
export { enqueueExport, checkQueueReachable, type EnqueueExportOptions, type EnqueuedExport } from './enqueue.js';
export { startExportWorker, type ExportWorker, type ExportWorkerOptions, type PartitionContext } from './worker.js';
export { waitForExport, type WaitForExportOptions } from './wait.js';
export {
  QUEUE_DATA_VERSION, DEFAULT_QUEUE, PARTITION_JOB, EXPORT_JOB, partitionJobId, exportJobId,
  QueueUnavailableError, QueueVersionError, ExportFailedError,
  type PartitionJobData, type ExportJobData, type FailedPartition,
} from './jobs.js';
