// Small-JSON GET throughput on loopback: sluice against raw undici and the popular clients, same server
// (in a child process), same concurrency, interleaved rounds; ratios are computed within each round.
import http from 'node:http';
import axios from 'axios';
import got from 'got';
import ky from 'ky';
import { Agent, Pool, request as undiciRequest } from 'undici';
import { createClient, FetchTransport } from '../packages/core/src/index.js';
import { drive, median, startChildServer } from './child-server.js';

export const name = 'core-get';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 16;

export async function run(): Promise<string> {
  const server = await startChildServer('./small-json-server.ts');
  const origin = `http://127.0.0.1:${server.port}`;
  const url = `${origin}/api/users/42`;

  const undiciAgent = new Agent({ connections: 128 });
  const pool = new Pool(origin, { connections: 128 });
  const sluice = createClient({ baseURL: `${origin}/api`, retry: false });
  const sluiceFetch = createClient({ baseURL: `${origin}/api`, retry: false, transport: new FetchTransport() });
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const axiosClient = axios.create({ httpAgent: keepAlive });
  const gotClient = got.extend({ agent: { http: keepAlive }, retry: { limit: 0 } });

  const contenders: [string, () => Promise<unknown>][] = [
    ['undici.request', async () => (await undiciRequest(url, { dispatcher: undiciAgent })).body.json()],
    ['undici Pool.request', async () => (await pool.request({ path: '/api/users/42', method: 'GET' })).body.json()],
    ['sluice', () => sluice.getJSON('users/42')],
    ['sluice (fetch transport)', () => sluiceFetch.getJSON('users/42')],
    ['fetch', async () => (await fetch(url)).json()],
    ['axios', async () => (await axiosClient.get(url)).data],
    ['got', () => gotClient(url).json()],
    ['ky', () => ky.get(url, { retry: 0 }).json()],
  ];

  // Warm up every client (connections, JIT) before measuring.
  for (const [, task] of contenders) await drive(500, CONCURRENCY, task);

  const ratesByClient = new Map<string, number[]>();
  const ratiosByClient = new Map<string, number[]>();
  const cpuByClient = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, label: string, value: number): void => {
    map.set(label, [...(map.get(label) ?? []), value]);
  };
  for (let round = 0; round < ROUNDS; round++) {
    const rates = new Map<string, number>();
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    for (const [label, task] of order) {
      const cpu = process.cpuUsage();
      const ms = await drive(REQUESTS, CONCURRENCY, task);
      const used = process.cpuUsage(cpu);
      rates.set(label, (REQUESTS / ms) * 1000);
      // The server runs in another process: this process's CPU time is the client's own work.
      push(cpuByClient, label, (used.user + used.system) / REQUESTS);
    }
    const reference = rates.get('undici.request')!;
    for (const [label, rate] of rates) {
      push(ratesByClient, label, rate);
      push(ratiosByClient, label, rate / reference);
    }
  }

  await Promise.all([sluice.close(), sluiceFetch.close(), undiciAgent.close(), pool.close()]);
  keepAlive.destroy();
  server.stop();

  const referenceCPU = median(cpuByClient.get('undici.request')!);
  const rows = contenders.map(([label]) => {
    const ratios = ratiosByClient.get(label)!;
    const cpu = median(cpuByClient.get(label)!);
    return `| ${label} | ${Math.round(median(ratesByClient.get(label)!))} | ${median(ratios).toFixed(2)} | ` +
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ${cpu.toFixed(1)} µs | ${(referenceCPU / cpu).toFixed(2)} |`;
  });
  return [
    '## Core: small-JSON GET throughput',
    '',
    `${REQUESTS} GETs of a 90-byte JSON document per client per round, ${CONCURRENCY} in flight, keep-alive, server in a`,
    `child process on 127.0.0.1; ${ROUNDS} interleaved rounds (order reversed every other round). The ratio is`,
    'against raw `undici.request` in the same round (median, and the range over rounds). Target: sluice ≥ 0.90.',
    'Wall-clock rates swing on this shared machine; the client CPU per request (this process only, the server runs in',
    'another) is the steadier measure, and its ratio is undici.request CPU / client CPU (1.00 = as cheap as undici).',
    '',
    '| client | requests/s (median) | ratio to undici.request | ratio range | client CPU per request | CPU ratio |',
    '|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
