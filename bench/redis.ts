// What sharing through Redis costs per operation, against the in-memory equivalents: a token cache hit
// (RedisTokenCache.get vs MemoryTokenCache.get), a rate limiter permit (RedisRateLimiter.take, one GCRA
// script, vs core's TokenBucket.take), and a whole request through a client with the Redis limiter (memory
// transport, so only the client and Redis are timed). Against a local redis-server on loopback.
import { createClient, TokenBucket } from '@sluice/core';
import { MemoryTokenCache, type Token } from '@sluice/oauth';
import { RedisRateLimiter, RedisTokenCache } from '@sluice/redis';
import { startRedisServer } from '@sluice/testkit';
import { Redis } from 'ioredis';
import { MemoryTransport } from './memory-transport.js';
import { drive, median } from './child-server.js';

export const name = 'redis';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const OPS = Number(process.env.BENCH_REDIS_OPS ?? 5000);
const CONCURRENCY = 16;

const BODY = new TextEncoder().encode('{"id":42}');


/** Median µs per operation over interleaved rounds, sequential (latency) and 16 at a time (throughput). */
async function measure(cases: [string, () => Promise<unknown>][]): Promise<Map<string, { sequential: number; concurrent: number }>> {
  for (const [, op] of cases) await drive(500, CONCURRENCY, op);
  const seq = new Map<string, number[]>();
  const conc = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? cases : [...cases].reverse();
    for (const [label, op] of order) {
      seq.set(label, [...(seq.get(label) ?? []), ((await drive(OPS, 1, op)) * 1000) / OPS]);
      conc.set(label, [...(conc.get(label) ?? []), ((await drive(OPS, CONCURRENCY, op)) * 1000) / OPS]);
    }
  }
  return new Map(cases.map(([label]) => [label, { sequential: median(seq.get(label)!), concurrent: median(conc.get(label)!) }]));
}

export async function run(): Promise<string> {
  const server = await startRedisServer();
  const redis = new Redis(server.url);
  try {
    const token: Token = { accessToken: 'a'.repeat(900), tokenType: 'Bearer', expiresAt: Date.now() + 3_600_000, expiresIn: 3_600_000 };
    const memoryCache = new MemoryTokenCache();
    const plainCache = new RedisTokenCache({ redis, namespace: 'bench-plain' });
    const sealedCache = new RedisTokenCache({ redis, namespace: 'bench-sealed', encryptionKey: new Uint8Array(32).fill(1) });
    for (const cache of [memoryCache, plainCache, sealedCache]) await cache.set('k', token, token.expiresAt);

    const huge = { requestsPerSecond: 1e9, burst: 1e6 };
    const bucket = new TokenBucket({ ...huge, maxQueue: 1000, failFast: false });
    const limiter = new RedisRateLimiter({ redis, key: 'bench', namespace: 'bench', ...huge });
    const memoryClient = createClient({ baseURL: 'http://127.0.0.1:1/api', transport: new MemoryTransport(BODY), rateLimit: huge });
    const redisClient = createClient({ baseURL: 'http://127.0.0.1:1/api', transport: new MemoryTransport(BODY), rateLimit: limiter });

    const results = await measure([
      ['token cache hit: MemoryTokenCache.get', () => memoryCache.get('k')],
      ['token cache hit: RedisTokenCache.get', () => plainCache.get('k')],
      ['token cache hit: RedisTokenCache.get, AES-256-GCM', () => sealedCache.get('k')],
      ['permit: TokenBucket.take', async () => bucket.take(undefined)],
      ['permit: RedisRateLimiter.take', async () => limiter.take(undefined)],
      ['request, in-memory rate limit', () => memoryClient.getJSON('x')],
      ['request, RedisRateLimiter', () => redisClient.getJSON('x')],
    ]);
    const row = (label: string, base: string): string => {
      const r = results.get(label)!;
      const b = results.get(base)!;
      const extra = label === base ? '' : `+${(r.sequential - b.sequential).toFixed(1)} µs`;
      return `| ${label} | ${r.sequential.toFixed(2)} µs | ${r.concurrent.toFixed(2)} µs | ${extra} |`;
    };
    await Promise.all([plainCache.close(), sealedCache.close(), memoryClient.close(), redisClient.close()]);
    return [
      '## redis',
      '',
      'Cost per operation of sharing through a local redis-server (loopback) against the in-memory equivalent:',
      'sequential (one at a time: the latency a request pays) and 16 at a time (the throughput cost, µs per',
      `operation). Median of ${ROUNDS} interleaved rounds of ${OPS} operations. The token cache is read only when a`,
      'process has no valid token (the plugin holds it in memory), so per request the shared cache costs',
      'nothing once a token is held; the limiter is asked on every attempt.',
      '',
      '| operation | sequential | 16 concurrent | extra per op (sequential) |',
      '|---|---|---|---|',
      row('token cache hit: MemoryTokenCache.get', 'token cache hit: MemoryTokenCache.get'),
      row('token cache hit: RedisTokenCache.get', 'token cache hit: MemoryTokenCache.get'),
      row('token cache hit: RedisTokenCache.get, AES-256-GCM', 'token cache hit: MemoryTokenCache.get'),
      row('permit: TokenBucket.take', 'permit: TokenBucket.take'),
      row('permit: RedisRateLimiter.take', 'permit: TokenBucket.take'),
      row('request, in-memory rate limit', 'request, in-memory rate limit'),
      row('request, RedisRateLimiter', 'request, in-memory rate limit'),
    ].join('\n');
  } finally {
    redis.disconnect();
    await server.close();
  }
}
