import { startRedisServer, type RedisTestServer } from '@sluice/testkit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  enqueueExport, ExportFailedError, QueueUnavailableError, QueueVersionError, startExportWorker, waitForExport, type ExportWorker,
} from '../src/index.js';

let redis: RedisTestServer;
let n = 0;
beforeAll(async () => {
  redis = await startRedisServer();
}, 60_000);
afterAll(async () => {
  await redis.close();
});

const fresh = (): string => `q${++n}`;
const fast = { lockDuration: 2000, stalledInterval: 1000 };

describe('BullMQ partitioned exports', () => {
  it('runs every partition once, then the export job with their results by index; --wait resolves with its result', async () => {
    const queue = fresh();
    const ran: number[] = [];
    const workers: ExportWorker[] = [1, 2].map(() => startExportWorker<{ n: number }, { label: string }, number>({
      redis: redis.url, queue, concurrency: 2, ...fast,
      runPartition: async (job) => { ran.push(job.index); return job.payload.n * 10; },
      finishExport: async (job, results) => ({ label: job.payload.label, results: [...results.entries()].sort((a, b) => a[0] - b[0]) }),
    }));
    try {
      const partitions = [1, 2, 3, 4, 5].map((i) => ({ name: `part-${i}`, payload: { n: i } }));
      const enq = await enqueueExport({ redis: redis.url, queue, partitions, export: { label: 'L' } });
      expect(enq).toMatchObject({ queue, partitions: 5 });
      const progress: number[] = [];
      const result = await waitForExport({ redis: redis.url, queue, exportId: enq.exportId, onProgress: (d) => progress.push(d) });
      expect(result).toEqual({ label: 'L', results: [[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]] });
      expect(ran.sort()).toEqual([1, 2, 3, 4, 5]);
      expect(progress.at(-1)).toBeLessThanOrEqual(5);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('retries a failing partition with backoff and reports it by name when every attempt failed; no export job result', async () => {
    const queue = fresh();
    const attempts: number[] = [];
    let finished = false;
    const worker = startExportWorker<{ bad: boolean }, object, number>({
      redis: redis.url, queue, concurrency: 2, ...fast,
      runPartition: async (job, ctx) => {
        if (!job.payload.bad) return 1;
        attempts.push(ctx.attempt);
        throw new Error(`service said 500 on attempt ${ctx.attempt}`);
      },
      finishExport: async () => { finished = true; return 'done'; },
    });
    try {
      const partitions = [{ name: 'part-00001 (ID lt 10)', payload: { bad: false } }, { name: 'part-00002 (ID ge 10)', payload: { bad: true } }];
      const enq = await enqueueExport({ redis: redis.url, queue, partitions, export: {}, attempts: 3, backoff: 10 });
      const error = await waitForExport({ redis: redis.url, queue, exportId: enq.exportId }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ExportFailedError);
      expect((error as ExportFailedError).failed).toEqual([{ index: 2, name: 'part-00002 (ID ge 10)', reason: 'service said 500 on attempt 3', attempts: 3 }]);
      expect((error as Error).message).toContain('1 partition failed for good (part-00002 (ID ge 10) after 3 attempts: service said 500 on attempt 3)');
      expect(attempts).toEqual([1, 2, 3]);
      expect(finished).toBe(false);
    } finally {
      await worker.close();
    }
  });

  it('refuses to enqueue when Redis is down, and into a queue of another data version: nothing enqueued', async () => {
    const down = await enqueueExport({ redis: 'redis://127.0.0.1:1', partitions: [{ name: 'p', payload: 1 }], export: {} }).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(QueueUnavailableError);
    expect((down as Error).message).toMatch(/^Redis at redis:\/\/127\.0\.0\.1:1 is not reachable \(.*ECONNREFUSED.*\); nothing was enqueued$/);
    const badBackoff = await enqueueExport({ redis: redis.url, partitions: [{ name: 'p', payload: 1 }], export: {}, backoff: -1 }).catch((e: unknown) => e);
    expect(badBackoff).toBeInstanceOf(RangeError);
    expect((badBackoff as Error).message).toBe('backoff must be a whole number of ms, 0 or more, got -1');

    const queue = fresh();
    const client = new Redis(redis.url);
    try {
      await client.set(`bull:${queue}:sluice-data-version`, '0');
      const old = await enqueueExport({ redis: redis.url, queue, partitions: [{ name: 'p', payload: 1 }], export: {} }).catch((e: unknown) => e);
      expect(old).toBeInstanceOf(QueueVersionError);
      expect((old as Error).message).toBe(`queue ${queue} holds export jobs of data version 0, this sluice writes and reads version 1; nothing was enqueued`);
      // No job, no id counter, no wait list: only the version mark (and BullMQ's queue meta, which its Queue may
      // or may not have written by now: it writes it when its connection is ready).
      const keys = (await client.keys(`bull:${queue}:*`)).filter((key) => key !== `bull:${queue}:meta`);
      expect(keys).toEqual([`bull:${queue}:sluice-data-version`]);
    } finally {
      client.disconnect();
    }
  });

  it('a job of another data version fails at once without retries', async () => {
    const queue = fresh();
    const seen: string[] = [];
    const worker = startExportWorker<number, object, number>({
      redis: redis.url, queue, ...fast,
      runPartition: async () => 1, finishExport: async () => 'done',
      onFailure: (_job, error, willRetry) => seen.push(`${error.message} retry=${willRetry}`),
    });
    try {
      const enq = await enqueueExport({ redis: redis.url, queue, partitions: [{ name: 'p1', payload: 1 }], export: {}, attempts: 4 });
      const client = new Redis(redis.url);
      // What an older enqueuer would have left: the same job without the version this worker reads.
      const { Queue } = await import('bullmq');
      const q = new Queue(queue, { connection: client });
      await q.add('partition', { exportId: 'old', index: 1, of: 1, name: 'old-part', payload: 1 }, { jobId: 'old-p00001', attempts: 4 });
      await waitForExport({ redis: redis.url, queue, exportId: enq.exportId });
      await expect.poll(() => seen.length, { timeout: 15_000 }).toBe(1);
      expect(seen[0]).toBe('job old-p00001 has data version undefined; this worker reads version 1 (enqueued by another sluice version) retry=false');
      await q.close();
      client.disconnect();
    } finally {
      await worker.close();
    }
  });
});
