import { createClient, type SluiceEvent } from '@sluice/core';
import { oauth2 } from '@sluice/oauth';
import { RedisRateLimiter, RedisTokenCache } from '@sluice/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTokenServer, type TokenServer } from './fixtures/token-server.js';
import { useRedis } from './fixtures/use-redis.js';

const fx = useRedis();
let tokens: TokenServer;
beforeAll(async () => {
  tokens = await startTokenServer();
});
afterAll(() => tokens.close());

describe('RedisTokenCache when Redis goes away', () => {
  it('keeps requests working with tokens acquired directly, reports the outage once, and shares again after it', async () => {
    const ns = fx.namespace();
    const events: SluiceEvent[] = [];
    const instance = () => {
      const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, commandTimeout: 2000, probeInterval: 50, onEvent: (e) => events.push(e) }));
      return { cache, client: fx.track(createClient({
        baseURL: tokens.apiURL,
        plugins: [oauth2({ clientId: 'svc', clientSecret: 'svc-secret', tokenURL: tokens.tokenURL, grantType: 'client_credentials', tokenCache: cache })],
      })) };
    };
    await fx.server.stop();
    const a = instance();
    const b = instance();
    const before = tokens.tokenRequests();
    const bodies = await Promise.all([a, b].flatMap(({ client }) => Array.from({ length: 10 }, () => client.getJSON<{ token: string }>('x'))));
    expect(bodies).toHaveLength(20);
    // Without Redis each instance acquires its own token: the requests do not fail for it.
    expect(tokens.tokenRequests()).toBe(before + 2);
    expect(events.map((e) => e.type)).toEqual(['redis.unavailable', 'redis.unavailable']);
    expect(events[0]).toMatchObject({ component: 'token-cache' });

    await fx.server.start();
    const c = instance();
    // A new instance, with Redis back, stores its token; a.cache notices on its next probe.
    await c.client.get('x');
    await new Promise<void>((resolve) => {
      const check = (): void => {
        if (!a.cache.unavailable) return resolve();
        void a.cache.get('probe').then(() => setTimeout(check, 20));
      };
      check();
    });
    expect(events.filter((e) => e.type === 'redis.recovered')).toHaveLength(1);
    const after = tokens.tokenRequests();
    await instance().client.get('x');
    expect(tokens.tokenRequests()).toBe(after);
  });

  it('never throws from Redis into the caller: get, set and delete resolve while it is down', async () => {
    const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: fx.namespace(), commandTimeout: 2000 }));
    await fx.server.stop();
    const token = { accessToken: 't', tokenType: 'Bearer', expiresAt: Date.now() + 60_000, expiresIn: 60_000 };
    await expect(cache.set('k', token, token.expiresAt)).resolves.toBeUndefined();
    await expect(cache.get('k')).resolves.toBeUndefined();
    await expect(cache.delete('k')).resolves.toBeUndefined();
    expect(cache.unavailable).toBe(true);
  });
});

/** Runs `during` while Redis holds every client's commands (CLIENT PAUSE), as an overloaded server would. */
async function pauseRedis(during: () => Promise<void>): Promise<void> {
  const admin = fx.connect();
  await admin.call('CLIENT', 'PAUSE', '5000', 'ALL');
  try {
    await during();
  } finally {
    await admin.call('CLIENT', 'UNPAUSE');
  }
}

describe('a slow Redis', () => {
  it('counts a command slower than commandTimeout as an outage: the limiter uses its local share, once reported', async () => {
    const events: SluiceEvent[] = [];
    const limiter = fx.track(new RedisRateLimiter({
      redis: fx.connect(), namespace: fx.namespace(), key: 'k', requestsPerSecond: 100, burst: 10, commandTimeout: 600, probeInterval: 60_000,
      onEvent: (e) => events.push(e),
    }));
    await limiter.take(undefined);
    expect(limiter.unavailable).toBe(false);
    await pauseRedis(async () => {
      await Promise.all(Array.from({ length: 5 }, () => limiter.take(undefined)));
    });
    expect(limiter.unavailable).toBe(true);
    expect(events).toEqual([{ type: 'redis.unavailable', component: 'rate-limiter', reason: 'Redis did not answer within 600 ms' }]);
  });

  it('a token cache read slower than commandTimeout is a miss, not a wait', async () => {
    const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: fx.namespace(), commandTimeout: 600 }));
    const token = { accessToken: 't', tokenType: 'Bearer', expiresAt: Date.now() + 60_000, expiresIn: 60_000 };
    await cache.set('k', token, token.expiresAt);
    expect(await cache.get('k')).toEqual(token);
    await pauseRedis(async () => {
      await expect(cache.get('k')).resolves.toBeUndefined();
    });
    expect(cache.unavailable).toBe(true);
  });
});
