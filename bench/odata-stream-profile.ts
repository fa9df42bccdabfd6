// Not a suite of `npm run bench`: one reader of the odata-stream bench alone, for a CPU profile of where its time goes.
//   npm run bench -- nothing   (compiles bench/.out), then
//   node --cpu-prof --cpu-prof-dir=<dir> bench/.out/odata-stream-profile.js <reader> [v4|v2] [reads]
// reader: `stream`, `batches` (streamBatches()), `pool` (the undici.Pool hand loop) or `floor` (decode + JSON.parse of
// pages already in memory, no HTTP); `stream+events` and `batches+events` listen to the client's events as the CLI does
// (which sends every request the client's full path rather than its direct one). Reads 200,000 records (pages of 1,000) from the test server in its own process
// `reads` times (default 10) after one warm-up read, and prints the client CPU per record; bench/profile-summary.ts
// groups the profile's samples.
import { Pool, request } from 'undici';
import { createODataClient } from '../packages/odata/src/index.js';
import { startServerProcess } from './odata-stream.js';
import { ACCEPT, handLoop, handLoopV2, RECORDS, sluiceBatches, sluiceStream, viaPool } from './odata-stream-rate.js';

const [reader = 'stream', protocol = 'v4', times = '10'] = process.argv.slice(2);
const server = await startServerProcess(RECORDS, 1000, 320 * 1024 * 1024);
try {
  const service = protocol === 'v2' ? server.v2 : server.v4;
  let events = 0;
  const onEvent = reader.endsWith('+events') ? () => { events++; } : undefined;
  const od = createODataClient({ serviceURL: service, version: protocol === 'v2' ? '2.0' : '4.0', http: { retry: false, onEvent } });
  const pool = new Pool(new URL(service).origin);
  const accept = protocol === 'v2' ? 'application/json' : ACCEPT;
  let read: () => Promise<number>;
  if (reader.startsWith('stream')) read = () => sluiceStream(od, RECORDS);
  else if (reader.startsWith('batches')) read = () => sluiceBatches(od, RECORDS);
  else if (reader === 'pool') read = () => (protocol === 'v2' ? handLoopV2 : handLoop)(`${service}Products?$top=${RECORDS}`, viaPool(pool, accept));
  else if (reader === 'floor') {
    // One page's bytes as the server sends it, decoded and parsed as many times as the reads have pages.
    const page = Buffer.from(await (await request(`${service}Products?$top=1000`, { headers: { accept } })).body.arrayBuffer());
    read = async () => {
      let n = 0;
      for (let p = 0; p < RECORDS / 1000; p++) {
        const doc = JSON.parse(page.toString('utf8')) as { value?: unknown[]; d?: { results: unknown[] } };
        n += (doc.value ?? doc.d!.results).length;
      }
      return n;
    };
  } else throw new Error(`unknown reader ${reader}`);
  await read();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let n = 0;
  for (let i = 0; i < Number(times); i++) n += await read();
  const cpu = process.cpuUsage(c0);
  const ms = performance.now() - t0;
  console.log(`${reader} ${protocol}: ${n} records, ${((cpu.user + cpu.system) / n).toFixed(2)} µs CPU per record (user ${(cpu.user / n).toFixed(2)}, system ${(cpu.system / n).toFixed(2)}), ${Math.round((n / ms) * 1000)} records/s${onEvent ? `, ${events} events` : ''}`);
  await od.close();
  await pool.close();
} finally {
  server.child.kill();
}
