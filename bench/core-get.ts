// Small-JSON GET on loopback. First sluice against undici's Pool (the floor of Node HTTP clients), each client in
// a process of its own per round (bench/core-get-child.ts), at 1 and 32 in flight, Pool also with the headers
// sluice sends; plus sluice's own work on an in-memory transport. Then the popular clients in one process, same
// server (in a child process), same concurrency; interleaved rounds, ratios computed within each round.
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import axios from 'axios';
import got from 'got';
import ky from 'ky';
import { Agent, Pool, request as undiciRequest } from 'undici';
import { createClient, FetchTransport } from '../packages/core/src/index.js';
import { ratiosFromTable, type ChartRatio } from './chart.js';
import { benchModule, drive, median, startChildServer } from './child-server.js';

export const name = 'core-get';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 16;

const POOL_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const POOL_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const IN_FLIGHT = [1, 32];

const POOL_CONTENDERS: [label: string, contender: string][] = [
  ['undici Pool.request, same headers as sluice', 'pool-same-headers'],
  ['undici Pool.request, no headers', 'pool'],
  ['sluice', 'sluice'],
  ['sluice, retry: false', 'sluice-no-retry'],
];

interface ChildResult {
  cpu: number;
  rate: number;
}

async function runChild(contender: string, concurrency: number, requests: number, port: number): Promise<ChildResult> {
  const compiled = import.meta.url.endsWith('.js');
  const args = [...(compiled ? [] : ['--import', 'tsx']), benchModule('./core-get-child.ts').pathname, contender, String(concurrency), String(requests), String(port)];
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as ChildResult;
}

/** sluice against undici's Pool, one process per client and round, at 1 and 32 in flight. */
async function againstPool(port: number): Promise<{ markdown: string; ratios: ChartRatio[] }> {
  const cpu = new Map<string, number[]>();
  const rateRatio = new Map<string, number[]>();
  const push = (map: Map<string, number[]>, key: string, value: number): void => {
    map.set(key, [...(map.get(key) ?? []), value]);
  };
  for (let round = 0; round < POOL_ROUNDS; round++) {
    for (const concurrency of IN_FLIGHT) {
      // Rotated each round, so every client takes every place in the order (a place has its own bias here).
      const order = POOL_CONTENDERS.map((_, i) => POOL_CONTENDERS[(i + round) % POOL_CONTENDERS.length]!);
      const results = new Map<string, ChildResult>();
      for (const [, contender] of order) results.set(contender, await runChild(contender, concurrency, POOL_REQUESTS, port));
      results.set('sluice-memory', await runChild('sluice-memory', concurrency, POOL_REQUESTS * 5, port));
      const reference = results.get('pool-same-headers')!;
      for (const [contender, result] of results) {
        push(cpu, `${contender}@${concurrency}`, result.cpu);
        push(rateRatio, `${contender}@${concurrency}`, result.rate / reference.rate);
      }
    }
  }
  const at = (map: Map<string, number[]>, contender: string, concurrency: number): number => median(map.get(`${contender}@${concurrency}`)!);
  const ratios: ChartRatio[] = [];
  const rows = POOL_CONTENDERS.map(([label, contender]) => {
    const cells = IN_FLIGHT.map((n) => {
      const ratio = at(cpu, contender, n) / at(cpu, 'pool-same-headers', n);
      return `${at(cpu, contender, n).toFixed(1)} µs | ${ratio.toFixed(2)} | ${at(rateRatio, contender, n).toFixed(2)}`;
    });
    return `| ${label} | ${cells.join(' | ')} |`;
  });
  for (const n of IN_FLIGHT) {
    const sluice = at(cpu, 'sluice', n);
    for (const [label, contender] of POOL_CONTENDERS) {
      if (!contender.startsWith('sluice')) ratios.push({ group: `Core GET, ${n} in flight`, peer: label, ratio: at(cpu, contender, n) / sluice });
    }
  }
  const memory = IN_FLIGHT.map((n) => `${at(cpu, 'sluice-memory', n).toFixed(2)} µs`);
  const markdown = [
    '## Core: small-JSON GET against undici Pool',
    '',
    `${POOL_REQUESTS} \`getJSON\` GETs of a 90-byte JSON document per client and round after a warm-up, keep-alive, server in a`,
    `child process on 127.0.0.1, each client in a process of its own (bench/core-get-child.ts); ${POOL_ROUNDS} interleaved rounds`,
    '(the order rotated every round), medians. CPU is the client process\'s own (user + system) per request. The',
    'reference is undici `Pool.request` + `body.json()` sending **the same request headers as sluice** (`accept:',
    'application/json`, `accept-encoding: gzip, deflate, br`); the "no headers" row sends none. `sluice` is a client with',
    'its defaults (retries, retry budget, 30 s timeout, Retry-After pauses). Targets: CPU ratio ≤ 1.05, throughput ratio ≥ 0.95.',
    '',
    '| client | CPU per request, 1 in flight | CPU ratio | throughput ratio | CPU per request, 32 in flight | CPU ratio | throughput ratio |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `Client work only (sluice with defaults on bench/memory-transport.ts, which answers at once from memory; ${POOL_REQUESTS * 5}`,
    `requests): ${memory[0]} per request at 1 in flight, ${memory[1]} at 32.`,
  ].join('\n');
  return { markdown, ratios };
}

export async function run(): Promise<{ markdown: string; ratios: ChartRatio[] }> {
  const server = await startChildServer('./small-json-server.ts');
  const origin = `http://127.0.0.1:${server.port}`;
  const pool = await againstPool(server.port);
  const url = `${origin}/api/users/42`;

  const undiciAgent = new Agent({ connections: 128 });
  const undiciPool = new Pool(origin, { connections: 128 });
  const sluice = createClient({ baseURL: `${origin}/api`, retry: false });
  const sluiceFetch = createClient({ baseURL: `${origin}/api`, retry: false, transport: new FetchTransport() });
  const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const axiosClient = axios.create({ httpAgent: keepAlive });
  const gotClient = got.extend({ agent: { http: keepAlive }, retry: { limit: 0 } });

  const contenders: [string, () => Promise<unknown>][] = [
    ['undici.request', async () => (await undiciRequest(url, { dispatcher: undiciAgent })).body.json()],
    ['undici Pool.request', async () => (await undiciPool.request({ path: '/api/users/42', method: 'GET' })).body.json()],
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

  await Promise.all([sluice.close(), sluiceFetch.close(), undiciAgent.close(), undiciPool.close()]);
  keepAlive.destroy();
  server.stop();

  const referenceCPU = median(cpuByClient.get('undici.request')!);
  const rows = contenders.map(([label]) => {
    const ratios = ratiosByClient.get(label)!;
    const cpu = median(cpuByClient.get(label)!);
    return `| ${label} | ${Math.round(median(ratesByClient.get(label)!))} | ${median(ratios).toFixed(2)} | ` +
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ${cpu.toFixed(1)} µs | ${(referenceCPU / cpu).toFixed(2)} |`;
  });
  const peers = [
    '## Core: small-JSON GET throughput against the popular clients',
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
  return { markdown: `${pool.markdown}\n\n${peers}`, ratios: [...pool.ratios, ...ratiosFromTable(peers, 'Core GET, 16 in flight, one process')] };
}
