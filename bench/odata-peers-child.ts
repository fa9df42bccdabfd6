// One client of bench/odata-peers.ts in its own process: a warm-up read, then the measured read of all
// records; prints one JSON line (count, duplicates, Int64 errors, wall ms, client CPU ms, RSS).
import { READERS, type ReadJob, type ReaderKey } from './peers/readers.js';
import { RecordSink } from './peers/sink.js';
import { currentRssKiB, peakRssKiB } from './proc-rss.js';

export interface ChildRequest {
  key: ReaderKey;
  job: ReadJob;
  /** Records of the warm-up read (JIT, connections); 0 for none. */
  warmup: number;
}

export interface ChildResult {
  n: number;
  duplicates: number;
  int64Checked: number;
  int64Wrong: number;
  ms: number;
  cpuMs: number;
  /** RSS (KiB, VmRSS) once the client's modules are loaded and before any read. */
  baseRss: number;
  /** Peak RSS (KiB, VmHWM) at the end. */
  peakRss: number;
}

async function main(req: ChildRequest): Promise<ChildResult> {
  const { open } = READERS[req.key];
  const reader = open(req.job);
  const baseRss = currentRssKiB();
  if (req.warmup > 0) {
    const warm = open({ ...req.job, records: req.warmup });
    await warm.read(new RecordSink(req.warmup));
    await warm.close();
  }
  const sink = new RecordSink(req.job.records);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  await reader.read(sink);
  const cpu = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  await reader.close();
  return {
    n: sink.n, duplicates: sink.duplicates, int64Checked: sink.int64Checked, int64Wrong: sink.int64Wrong,
    ms, cpuMs: (cpu.user + cpu.system) / 1000, baseRss, peakRss: peakRssKiB(),
  };
}

const request = process.env.ODATA_PEERS_CHILD;
if (request) {
  const result = await main(JSON.parse(request) as ChildRequest);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  // Keep-alive sockets of some clients (fetch's global agent, the SDK's agents) would hold the process open.
  process.exit(0);
}
