// What resilience costs on the hot path: small-JSON GET throughput of sluice with its defaults (retry
// budget and Retry-After pause on), with every resilience option off, and with all of them on at limits
// that never bind, against raw undici.request; interleaved rounds, ratios computed within each round.
import { Agent, request as undiciRequest } from 'undici';
import {
  Bulkhead, CircuitBreakers, createClient, OriginPauses, RESILIENCE_DEFAULTS, RetryBudget, TokenBucket,
  type ClientOptions,
} from '../packages/core/src/index.js';
import { MemoryTransport } from './memory-transport.js';
import { drive, median, startChildServer } from './child-server.js';

export const name = 'core-resilience';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 4000);
const CONCURRENCY = 16;

const BODY = new TextEncoder().encode('{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true,"roles":["admin"]}');


const CONFIGS: [string, ClientOptions][] = [
  ['resilience off', { retryBudget: false, pauseOnRetryAfter: false }],
  ['defaults (retry budget + pause on)', {}],
  ['rate limit + breaker + bulkhead on', { rateLimit: { requestsPerSecond: 1e9, burst: 1e6 }, circuitBreaker: true, bulkhead: { maxConcurrent: 64 } }],
];

/** Microseconds of client work per request (no network), median over interleaved rounds. */
export async function clientOverhead(): Promise<string[]> {
  const clients = CONFIGS.map(([label, options]) => [label, createClient({ baseURL: 'http://127.0.0.1:1/api', transport: new MemoryTransport(BODY), ...options })] as const);
  const n = 20_000;
  for (const [, c] of clients) await drive(n, CONCURRENCY, () => c.getJSON('users/42'));
  const samples = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS * 2; round++) {
    const order = round % 2 === 0 ? clients : [...clients].reverse();
    for (const [label, c] of order) {
      const ms = await drive(n, CONCURRENCY, () => c.getJSON('users/42'));
      samples.set(label, [...(samples.get(label) ?? []), (ms * 1000) / n]);
    }
  }
  const base = median(samples.get('resilience off')!);
  return clients.map(([label]) => {
    const us = median(samples.get(label)!);
    return `| ${label} | ${us.toFixed(2)} µs | ${(us - base >= 0 ? '+' : '') + (us - base).toFixed(2)} µs |`;
  });
}

/** Nanoseconds per call of each mechanism's no-wait path, best of several runs of a million calls. */
export function bookkeeping(): string[] {
  const n = 1_000_000;
  const budget = new RetryBudget(RESILIENCE_DEFAULTS.retryBudget);
  const pauses = new OriginPauses();
  const bucket = new TokenBucket({ requestsPerSecond: 1e12, burst: 1e9, maxQueue: 0, failFast: false });
  const breakers = new CircuitBreakers(RESILIENCE_DEFAULTS.circuitBreaker);
  const bulkhead = new Bulkhead({ maxConcurrent: 64, maxQueue: 0 });
  const origin = 'http://127.0.0.1:8080';
  const cases: [string, () => void][] = [
    ['retry budget: recordRequest()', () => budget.recordRequest()],
    ['pause check (no pause on record)', () => void pauses.active],
    ['rate limit: take() with a free token', () => void bucket.take(undefined)],
    ['breaker: check() + acquire() + record()', () => { breakers.check(origin); breakers.record(breakers.acquire(origin), 'success'); }],
    ['bulkhead: acquire() + release()', () => { bulkhead.acquire(undefined); bulkhead.release(); }],
  ];
  return cases.map(([label, fn]) => {
    let best = Infinity;
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      for (let i = 0; i < n; i++) fn();
      best = Math.min(best, ((performance.now() - t0) * 1e6) / n);
    }
    return `| ${label} | ${best.toFixed(0)} ns |`;
  });
}

export async function run(): Promise<string> {
  const costs = bookkeeping();
  const overhead = await clientOverhead();
  const server = await startChildServer('./small-json-server.ts');
  const origin = `http://127.0.0.1:${server.port}`;
  const url = `${origin}/api/users/42`;
  const agent = new Agent({ connections: 128 });
  const defaults = createClient({ baseURL: `${origin}/api` });
  const bare = createClient({ baseURL: `${origin}/api`, retryBudget: false, pauseOnRetryAfter: false });
  const everything = createClient({
    baseURL: `${origin}/api`,
    rateLimit: { requestsPerSecond: 1e9, burst: 1e6 },
    circuitBreaker: true,
    bulkhead: { maxConcurrent: 64 },
  });
  const contenders: [string, () => Promise<unknown>][] = [
    ['undici.request', async () => (await undiciRequest(url, { dispatcher: agent })).body.json()],
    ['sluice, resilience off', () => bare.getJSON('users/42')],
    ['sluice, defaults (retry budget + pause on)', () => defaults.getJSON('users/42')],
    ['sluice, rate limit + breaker + bulkhead on', () => everything.getJSON('users/42')],
  ];
  for (const [, task] of contenders) await drive(500, CONCURRENCY, task);

  const rates = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? contenders : [...contenders].reverse();
    const thisRound = new Map<string, number>();
    for (const [label, task] of order) thisRound.set(label, (REQUESTS / (await drive(REQUESTS, CONCURRENCY, task))) * 1000);
    const reference = thisRound.get('undici.request')!;
    for (const [label, rate] of thisRound) {
      rates.set(label, [...(rates.get(label) ?? []), rate]);
      ratios.set(label, [...(ratios.get(label) ?? []), rate / reference]);
    }
  }
  await Promise.all([defaults.close(), bare.close(), everything.close(), agent.close()]);
  server.stop();

  const rows = contenders.map(([label]) => {
    const r = ratios.get(label)!;
    return `| ${label} | ${Math.round(median(rates.get(label)!))} | ${median(r).toFixed(2)} | ${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)} |`;
  });
  return [
    '## Core: cost of resilience on small-JSON GETs',
    '',
    `${REQUESTS} GETs of a 90-byte JSON document per client per round, ${CONCURRENCY} in flight, keep-alive, server in a`,
    `child process; ${ROUNDS} interleaved rounds. Ratio against raw \`undici.request\` in the same round. The limits of the`,
    'last row never bind, so it measures bookkeeping only. Target: every sluice row ≥ 0.90.',
    '',
    '| client | requests/s (median) | ratio to undici.request | ratio range |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Client work alone (an in-memory transport answering at once; no network), per request, median of interleaved rounds:',
    '',
    '| client | time per request | over resilience off |',
    '|---|---|---|',
    ...overhead,
    '',
    'Bookkeeping of each mechanism when nothing has to wait (best of 5 runs of 10⁶ calls):',
    '',
    '| operation | per call |',
    '|---|---|',
    ...costs,
  ].join('\n');
}
