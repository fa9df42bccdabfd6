import { createClient, RateLimitError, type SluiceEvent } from '@sluice/core';
import { RedisRateLimiter } from '@sluice/redis';
import { startServer, type TestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxInWindow } from './fixtures/windows.js';
import { useRedis } from './fixtures/use-redis.js';

const fx = useRedis();
let api: TestServer;
beforeAll(async () => {
  api = await startServer((_req, res) => {
    res.end('ok');
  });
});
afterAll(() => api.close());

/** Scripts the test server has run so far (EVALSHA and EVAL), from its command statistics. */
async function scriptCalls(): Promise<number> {
  const stats = await fx.connect().info('commandstats');
  return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
}

function arrivalsOf(tag: string): number[] {
  return api.requests.filter((r) => r.url.startsWith(`/${tag}/`)).map((r) => r.at);
}

describe('RedisRateLimiter: one budget for every instance', () => {
  it('keeps 3 clients with their own connections under one shared rate', async () => {
    const ns = fx.namespace();
    const rate = 20;
    const clients = Array.from({ length: 3 }, () => fx.track(createClient({
      baseURL: api.origin,
      rateLimit: fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: api.origin, requestsPerSecond: rate, burst: 2 })),
    })));
    await Promise.all(clients.flatMap((client) => Array.from({ length: 14 }, (_, i) => client.get(`${ns}/${i}`))));
    const arrivals = arrivalsOf(ns);
    expect(arrivals).toHaveLength(42);
    // Unshared, 3 clients at 20/s would put ~60 in a second; shared, 20 + burst 2, plus half a second's
    // worth for attempts a busy machine sent late (they bunch with the next ones).
    expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(rate + 2 + rate / 2);
  });

  it('with batch, reserves several slots per Redis round trip and still keeps to the shared rate', async () => {
    const ns = fx.namespace();
    const rate = 40;
    const clients = Array.from({ length: 2 }, () => fx.track(createClient({
      baseURL: api.origin,
      rateLimit: fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'k', requestsPerSecond: rate, burst: 2, batch: 5 })),
    })));
    const before = await scriptCalls();
    await Promise.all(clients.flatMap((client) => Array.from({ length: 30 }, (_, i) => client.get(`${ns}/${i}`))));
    const calls = (await scriptCalls()) - before;
    expect(calls).toBeGreaterThanOrEqual(12);
    expect(calls).toBeLessThanOrEqual(20);
    const arrivals = arrivalsOf(ns);
    expect(arrivals).toHaveLength(60);
    expect(maxInWindow(arrivals, 1000)).toBeLessThanOrEqual(rate + 2 + rate / 2);
  });

  it('limiters with different keys do not share a budget', async () => {
    const ns = fx.namespace();
    const a = fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'a', requestsPerSecond: 1, failFast: true }));
    const b = fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'b', requestsPerSecond: 1, failFast: true }));
    await a.take(undefined);
    await b.take(undefined);
    await expect(a.take(undefined)).rejects.toBeInstanceOf(RateLimitError);
  });

  it('fails fast with RateLimitError carrying the wait, without reserving a slot', async () => {
    const ns = fx.namespace();
    const limiter = fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'k', requestsPerSecond: 2 }));
    await limiter.take(undefined, true);
    const error = await Promise.resolve(limiter.take(undefined, true)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).reason).toBe('no-token');
    expect((error as RateLimitError).retryAfter).toBeGreaterThan(0);
    expect((error as RateLimitError).retryAfter).toBeLessThanOrEqual(500);
  });

  it('refuses with queue-full when maxQueue attempts already wait across instances', async () => {
    const ns = fx.namespace();
    const make = (): RedisRateLimiter => fx.track(new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'k', requestsPerSecond: 1, maxQueue: 2 }));
    const [a, b] = [make(), make()];
    await a.take(undefined);
    const controller = new AbortController();
    const waits = [a.take(controller.signal), b.take(controller.signal)].map((p) => Promise.resolve(p).catch((e: unknown) => e));
    const error = await Promise.resolve(b.take(undefined)).catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'queue-full' });
    controller.abort(new Error('test over'));
    expect(await Promise.all(waits)).toEqual([expect.any(Error), expect.any(Error)]);
  });

  it('a waiting attempt rejects with the signal reason on abort and with the close reason on close', async () => {
    const ns = fx.namespace();
    const limiter = new RedisRateLimiter({ redis: fx.connect(), namespace: ns, key: 'k', requestsPerSecond: 0.5 });
    await limiter.take(undefined);
    const controller = new AbortController();
    const aborted = limiter.take(controller.signal);
    const closed = Promise.resolve(limiter.take(undefined)).catch((e: unknown) => e);
    controller.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
    const reason = new Error('closing');
    limiter.close(reason);
    expect(await closed).toBe(reason);
    expect(() => limiter.take(undefined)).toThrow('closing');
  });
});

describe('RedisRateLimiter when Redis goes away', () => {
  it('falls back to the local share, reports the outage once, and shares again after recovery', async () => {
    const ns = fx.namespace();
    const events: SluiceEvent[] = [];
    const limiter = fx.track(new RedisRateLimiter({
      redis: fx.connect(), namespace: ns, key: 'k', requestsPerSecond: 40, burst: 4, instances: 2, probeInterval: 100, commandTimeout: 2000,
      onEvent: (e) => events.push(e),
    }));
    const client = fx.track(createClient({ baseURL: api.origin, rateLimit: limiter }));
    await client.get(`${ns}/before`);
    await fx.server.stop();
    const during = await Promise.all(Array.from({ length: 12 }, (_, i) => client.get(`${ns}/down-${i}`)));
    expect(during.every((r) => r.status === 200)).toBe(true);
    expect(limiter.unavailable).toBe(true);
    expect(events.map((e) => e.type)).toEqual(['redis.unavailable']);
    await fx.server.start();
    const recovered = new Promise<void>((resolve) => {
      const poll = (): void => {
        if (!limiter.unavailable) return resolve();
        void client.get(`${ns}/probe`).then(poll);
      };
      poll();
    });
    await recovered;
    expect(events.map((e) => e.type)).toEqual(['redis.unavailable', 'redis.recovered']);
    await client.get(`${ns}/after`);
    expect(await fx.connect().exists(`${ns}:rate:{k}`)).toBe(1);
    // The local share is 40/2 = 20/s with burst 2: 12 attempts span at least 9 intervals of 50 ms (a busy
    // machine only stretches this; without the share they would all go at once).
    const down = api.requests.filter((r) => r.url.startsWith(`/${ns}/down-`)).map((r) => r.at);
    expect(Math.max(...down) - Math.min(...down)).toBeGreaterThanOrEqual(9 * 50 - 5);
  });
});
