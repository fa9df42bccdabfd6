import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startInstances, type Instance } from './fixtures/instances.js';
import { startTokenServer, type TokenServer } from './fixtures/token-server.js';
import { useRedis } from './fixtures/use-redis.js';
import { maxInWindow } from './fixtures/windows.js';

const fx = useRedis();
let instances: Instance[] = [];
afterEach(async () => {
  await Promise.all(instances.map((i) => i.stop()));
  instances = [];
});

describe('4 Node processes sharing one token through Redis', () => {
  let tokens: TokenServer;
  beforeAll(async () => {
    tokens = await startTokenServer();
  });
  afterAll(() => tokens.close());

  it('50 concurrent first requests in each process cost exactly one token request', async () => {
    instances = startInstances(4);
    const namespace = fx.namespace();
    await Promise.all(instances.map((i) => i.send({ cmd: 'token-setup', redisURL: fx.server.url, namespace, tokenURL: tokens.tokenURL, apiURL: tokens.apiURL })));
    const before = tokens.tokenRequests();
    const replies = await Promise.all(instances.map((i) => i.send({ cmd: 'get', count: 50, concurrency: 50, path: 'first' })));
    expect(replies.flatMap((r) => r.errors)).toEqual([]);
    expect(tokens.tokenRequests()).toBe(before + 1);
    const seen = new Set(replies.flatMap((r) => r.bodies.map((b) => (JSON.parse(b) as { token: string }).token)));
    expect(seen.size).toBe(1);
  });

  it('a forced refresh in one process is taken up by the others with one more token request in total', async () => {
    instances = startInstances(4);
    const namespace = fx.namespace();
    await Promise.all(instances.map((i) => i.send({ cmd: 'token-setup', redisURL: fx.server.url, namespace, tokenURL: tokens.tokenURL, apiURL: tokens.apiURL })));
    const before = tokens.tokenRequests();
    await Promise.all(instances.map((i) => i.send({ cmd: 'get', count: 10, concurrency: 10, path: 'first' })));
    expect(tokens.tokenRequests()).toBe(before + 1);
    const [forcing, ...others] = instances;
    await forcing!.send({ cmd: 'force' });
    expect(tokens.tokenRequests()).toBe(before + 2);
    // The API now refuses the old token: each other process gets a 401, drops it, and finds the new one in Redis.
    tokens.onlyNewest = true;
    try {
      const replies = await Promise.all(others.map((i) => i.send({ cmd: 'get', count: 20, concurrency: 20, path: 'after' })));
      expect(replies.flatMap((r) => r.errors)).toEqual([]);
      expect(new Set(replies.flatMap((r) => r.bodies.map((b) => (JSON.parse(b) as { token: string }).token)))).toEqual(new Set([`token-${before + 2}`]));
      expect(tokens.tokenRequests()).toBe(before + 2);
    } finally {
      tokens.onlyNewest = false;
    }
  });
});

describe('4 Node processes sharing one rate budget through Redis', () => {
  let api: TestServer;
  beforeAll(async () => {
    api = await startServer((_req, res) => sendJSON(res, 200, { ok: true }));
  });
  afterAll(() => api.close());

  const rate = 20;
  const burst = 4;
  /** Attempts sent late by a loaded machine (2 shared cores) bunch up: half a second's worth is allowed. */
  const jitter = rate / 2;
  const arrivals = (path: string): number[] => api.requests.filter((r) => r.url.startsWith(`/${path}/`)).map((r) => r.at);

  async function setup(): Promise<void> {
    instances = startInstances(4);
    const namespace = fx.namespace();
    await Promise.all(instances.map((i) => i.send({ cmd: 'rate-setup', redisURL: fx.server.url, namespace, apiURL: api.origin, requestsPerSecond: rate, burst, instances: 4 })));
  }

  it('the server never sees more than the rate plus the burst in any second', async () => {
    await setup();
    const path = fx.namespace();
    const replies = await Promise.all(instances.map((i, k) => i.send({ cmd: 'get', count: 15, concurrency: 5, path: `${path}/p${k}` })));
    expect(replies.flatMap((r) => r.errors)).toEqual([]);
    const times = arrivals(path);
    expect(times).toHaveLength(60);
    // Four unshared limiters would let 4 x 20 + 4 x 4 = 96 through in a second; shared, 20 + burst 4, plus
    // `jitter` for attempts a busy machine delayed after their slot (they bunch with the next ones).
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(rate + burst + jitter);
  });

  it('with Redis stopped mid-run and started again, no request fails and each process sends its share meanwhile', async () => {
    await setup();
    const path = fx.namespace();
    const running = Promise.all(instances.map((i, k) => i.send({ cmd: 'get', count: 40, concurrency: 3, path: `${path}/p${k}` })));
    await until(() => arrivals(path).length >= 20);
    await fx.server.stop();
    const stoppedAt = performance.now();
    await until(() => arrivals(path).filter((t) => t > stoppedAt).length >= 40);
    const restartedAt = performance.now();
    await fx.server.start();
    const replies = await running;
    expect(replies.flatMap((r) => r.errors)).toEqual([]);
    expect(arrivals(path)).toHaveLength(160);
    // Before, during and after the outage: the shared budget. At the handover back to Redis the README allows
    // a short overshoot (instances notice the recovery at different times: the other three's local shares,
    // plus one burst from a Redis that restarted empty); still far below four unshared limiters (96).
    const handover = (rate / 4) * 3 + burst;
    expect(maxInWindow(arrivals(path), 1000)).toBeLessThanOrEqual(rate + burst + jitter + handover);
    // During it, each process sends its share, 20/4 = 5/s with a burst of 1: its local attempts are 200 ms
    // apart, after the (at most 3, one per worker) slots Redis granted before it stopped. Unlimited, they would bunch.
    for (let k = 0; k < 4; k++) {
      const during = arrivals(`${path}/p${k}`).filter((t) => t > stoppedAt && t < restartedAt);
      expect(during.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...during) - Math.min(...during)).toBeGreaterThanOrEqual((during.length - 4) * 200 - 5);
    }
    // One event per outage, not per request: unavailable and recovered alternate, ending recovered (a loaded
    // machine may add a short outage of its own when a command outlasts commandTimeout).
    for (const reply of replies) {
      const types = reply.events.map((e) => e.type);
      expect(types.length).toBeGreaterThanOrEqual(2);
      expect(types.length).toBeLessThanOrEqual(6);
      types.forEach((type, i) => expect(type).toBe(i % 2 === 0 ? 'redis.unavailable' : 'redis.recovered'));
      expect(types.at(-1)).toBe('redis.recovered');
    }
  }, 60_000);
});

/** Resolves once `condition` holds, checking on every request the test server records. */
function until(condition: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = (): void => {
      if (condition()) resolve();
      else setTimeout(check, 20);
    };
    check();
  });
}
