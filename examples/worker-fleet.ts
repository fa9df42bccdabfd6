// A partitioned export over a fleet of BullMQ workers, with the libraries the `sluice worker` command uses.
// The README of @sluice/queue shows this file; `npm run typecheck` compiles it.
//
//   REDIS_URL=redis://127.0.0.1:6379 SERVICE_URL=https://host/odata/v4/sales/ node --import tsx examples/worker-fleet.ts worker   # on each machine
//   REDIS_URL=redis://127.0.0.1:6379 SERVICE_URL=https://host/odata/v4/sales/ node --import tsx examples/worker-fleet.ts enqueue  # once
import { createWriteStream } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createODataClient, partitionQuery, planPartitions, type Partition } from '@sluice/odata';
import { enqueueExport, startExportWorker, waitForExport } from '@sluice/queue';

const redis = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const serviceURL = process.env.SERVICE_URL ?? 'http://127.0.0.1:4004/odata/v4/demo/';
const entitySet = 'Products';
const outDir = process.env.OUT_DIR ?? '/tmp'; // every worker must see it: a shared file system

/** Writes one partition's records as NDJSON to a temporary file, renamed when complete. */
async function writePartition(partition: Partition, signal: AbortSignal): Promise<number> {
  const od = createODataClient({ serviceURL });
  const file = `${outDir}/part-${String(partition.index).padStart(5, '0')}.ndjson`;
  const temp = `${file}.${process.pid}.partial`;
  const out = createWriteStream(temp);
  let records = 0;
  try {
    for await (const item of partitionQuery(od.from(entitySet), partition).stream({ signal })) {
      if (item.error !== undefined) throw item.error;
      if (!out.write(`${JSON.stringify(item.value)}\n`)) await once(out, 'drain');
      records++;
    }
    await new Promise<void>((resolve) => out.end(resolve));
    await rename(temp, file); // a retried partition replaces the file whole
    return records;
  } finally {
    out.destroy();
    await od.close();
  }
}

export async function enqueue(): Promise<void> {
  const od = createODataClient({ serviceURL });
  const plan = await planPartitions(od.from(entitySet), { partitions: 16 });
  await od.close();
  const { exportId } = await enqueueExport({
    redis,
    partitions: plan.partitions.map((p) => ({ name: `part ${p.index} (${p.filter ?? 'all'})`, payload: p })),
    export: { entitySet },
  });
  const total = await waitForExport<number>({ redis, exportId, onProgress: (done, of) => console.log(`${done}/${of} partitions`) });
  console.log(`exported ${total} records`);
}

export async function worker(): Promise<void> {
  const fleet = startExportWorker<Partition, { entitySet: string }, number>({
    redis,
    concurrency: 2,
    runPartition: (job, ctx) => writePartition(job.payload, ctx.signal),
    finishExport: async (job, results) => {
      const total = [...results.values()].reduce((a, b) => a + b, 0);
      await writeFile(`${outDir}/_manifest.json`, JSON.stringify({ entitySet: job.payload.entitySet, records: total }));
      return total;
    },
  });
  process.once('SIGTERM', () => void fleet.close());
  process.once('SIGINT', () => void fleet.close());
}

if (process.argv[2] === 'enqueue') await enqueue();
else if (process.argv[2] === 'worker') await worker();
