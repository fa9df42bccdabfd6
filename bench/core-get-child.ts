// One client of bench/core-get.ts in a process of its own: warms up, then sends `requests` small-JSON GETs with
// `concurrency` in flight and prints its own CPU time and the elapsed time as one JSON line. The server runs in
// another process, so this process's CPU is the client's work alone.
import { Pool } from 'undici';
import { createClient } from '../packages/core/src/index.js';
import { drive } from './child-server.js';
import { MemoryTransport } from './memory-transport.js';

/** The headers sluice sends on getJSON with its defaults; the "same headers" Pool row sends them too. */
const SLUICE_GET_JSON_HEADERS = { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' };

const BODY = Buffer.from(JSON.stringify({ id: 42, name: 'Ada Lovelace', email: 'ada@example.com', active: true, roles: ['admin', 'dev'] }));

const [contender, concurrencyArg, requestsArg, portArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const requests = Number(requestsArg);
const origin = `http://127.0.0.1:${portArg}`;

let task: () => Promise<unknown>;
let close: () => Promise<void>;
if (contender === 'pool' || contender === 'pool-same-headers') {
  const pool = new Pool(origin, { connections: 128 });
  const headers = contender === 'pool' ? undefined : SLUICE_GET_JSON_HEADERS;
  task = async () => (await pool.request({ path: '/api/users/42', method: 'GET', headers })).body.json();
  close = () => pool.close();
} else {
  const options = {
    sluice: {},
    'sluice-no-retry': { retry: false as const },
    'sluice-memory': { transport: new MemoryTransport(BODY) },
  }[contender ?? ''];
  if (options === undefined) throw new Error(`unknown contender ${contender}`);
  const client = createClient({ baseURL: `${origin}/api`, ...options });
  task = () => client.getJSON('users/42');
  close = () => client.close();
}

await drive(Math.min(3000, requests), concurrency, task);
const cpu = process.cpuUsage();
const ms = await drive(requests, concurrency, task);
const used = process.cpuUsage(cpu);
await close();
process.stdout.write(`${JSON.stringify({ cpu: (used.user + used.system) / requests, rate: (requests / ms) * 1000 })}\n`);
process.exit(0);
