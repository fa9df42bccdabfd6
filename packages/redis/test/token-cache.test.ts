import { createClient, type Client, type SluiceEvent } from '@sluice/core';
import { forceRefresh, oauth2 } from '@sluice/oauth';
import { RedisTokenCache } from '@sluice/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTokenServer, type TokenServer } from './fixtures/token-server.js';
import { useRedis } from './fixtures/use-redis.js';

const fx = useRedis();
let tokens: TokenServer;
beforeAll(async () => {
  tokens = await startTokenServer();
});
afterAll(() => tokens.close());

/** One application instance: its own Redis connection, cache and client, as a separate pod would have. */
function instance(namespace: string, options: Partial<ConstructorParameters<typeof RedisTokenCache>[0]> = {}): { client: Client; cache: RedisTokenCache } {
  const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace, ...options }));
  const client = fx.track(createClient({
    baseURL: tokens.apiURL,
    plugins: [oauth2({ clientId: 'svc', clientSecret: 'svc-secret', tokenURL: tokens.tokenURL, grantType: 'client_credentials', tokenCache: cache })],
  }));
  return { client, cache };
}

describe('RedisTokenCache shared by several instances', () => {
  it('makes one token request for 50 concurrent first requests in each of 5 instances', async () => {
    const ns = fx.namespace();
    const before = tokens.tokenRequests();
    const instances = Array.from({ length: 5 }, () => instance(ns));
    const bodies = await Promise.all(instances.flatMap(({ client }) =>
      Array.from({ length: 50 }, (_, i) => client.getJSON<{ token: string }>(`items/${i}`))));
    expect(tokens.tokenRequests()).toBe(before + 1);
    expect(new Set(bodies.map((b) => b.token)).size).toBe(1);
  });

  it('hands a later instance the stored token without a token request', async () => {
    const ns = fx.namespace();
    await instance(ns).client.get('first');
    const before = tokens.tokenRequests();
    await instance(ns).client.get('second');
    expect(tokens.tokenRequests()).toBe(before);
  });

  it('a forced refresh in one instance is adopted by an instance that starts later', async () => {
    const ns = fx.namespace();
    const a = instance(ns);
    const first = await a.client.getJSON<{ token: string }>('x');
    await forceRefresh(a.client);
    const refreshed = await a.client.getJSON<{ token: string }>('x');
    expect(refreshed.token).not.toBe(first.token);
    const before = tokens.tokenRequests();
    const late = await instance(ns).client.getJSON<{ token: string }>('x');
    expect(late.token).toBe(refreshed.token);
    expect(tokens.tokenRequests()).toBe(before);
  });

  it('stores the token under the namespace with the token lifetime as TTL, and no secret in any key', async () => {
    const ns = fx.namespace();
    await instance(ns).client.get('x');
    const redis = fx.connect();
    const keys = await redis.keys(`${ns}:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(new RegExp(`^${ns}:token:\\{sluice:oauth2:[A-Za-z0-9_-]+\\}$`));
    expect(keys.join()).not.toContain('svc-secret');
    const ttl = await redis.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(200_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
  });

  it('keeps a token whose expiry is already past for the fallback lifetime only', async () => {
    const ns = fx.namespace();
    const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, fallbackLifetime: 5000 }));
    const token = { accessToken: 'old', tokenType: 'Bearer', expiresAt: Date.now() - 1000, expiresIn: 1000 };
    await cache.set('k', token, token.expiresAt);
    const ttl = await fx.connect().pttl(`${ns}:token:{k}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(5000);
  });

  it('does not hand out a token the caller says is stale: it takes the lock instead', async () => {
    const ns = fx.namespace();
    const a = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns }));
    const b = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, lockWait: 200 }));
    const token = { accessToken: 'refused', tokenType: 'Bearer', expiresAt: Date.now() + 60_000, expiresIn: 60_000 };
    await a.set('k', token, token.expiresAt);
    expect(await b.get('k')).toEqual(token);
    expect(await a.get('k', 'refused')).toBeUndefined();
    // a holds the lock now: b waits, then gets the replacement a stores.
    const waiting = b.get('k', 'refused');
    const next = { ...token, accessToken: 'fresh' };
    await a.set('k', next, next.expiresAt);
    expect(await waiting).toEqual(next);
  });

  it('lets a waiting instance acquire directly when the lock holder never stores a token', async () => {
    const ns = fx.namespace();
    const a = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns }));
    const b = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, lockWait: 300, pollInterval: 50 }));
    expect(await a.get('k')).toBeUndefined();
    // a "crashed" holding the lock; b gives up waiting after lockWait and returns a miss.
    expect(await b.get('k')).toBeUndefined();
    expect(await fx.connect().get(`${ns}:token-lock:{k}`)).not.toBeNull();
  });
});

describe('RedisTokenCache and background refresh', () => {
  it('3 busy instances refresh a short-lived token with one token request between them', async () => {
    const ns = fx.namespace();
    tokens.expiresIn = 3;
    try {
      const refreshed = new Set<number>();
      const clients = [0, 1, 2].map((n) => {
        const cache = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns }));
        return fx.track(createClient({
          baseURL: tokens.apiURL,
          plugins: [oauth2(
            { clientId: 'svc', clientSecret: 'svc-secret', tokenURL: tokens.tokenURL, grantType: 'client_credentials', tokenCache: cache, refreshBuffer: 2000 },
            { onTokenEvent: (e) => { if (e.type === 'TokenRefreshed') refreshed.add(n); } },
          )],
        }));
      });
      await Promise.all(clients.map((c) => c.get('first')));
      const before = tokens.tokenRequests();
      // The refresh is started by requests once the token is due: keep every instance busy until each has one.
      await Promise.all(clients.map(async (client, n) => {
        while (!refreshed.has(n)) {
          await client.get('busy');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }));
      expect(tokens.tokenRequests()).toBe(before + 1);
    } finally {
      tokens.expiresIn = 300;
    }
  });
});

describe('RedisTokenCache encryption', () => {
  const key = Buffer.alloc(32, 7);

  it('stores no readable token when an encryption key is given, and reads it back', async () => {
    const ns = fx.namespace();
    const { client } = instance(ns, { encryptionKey: key });
    const { token } = await client.getJSON<{ token: string }>('x');
    const [stored] = await fx.connect().keys(`${ns}:token:*`);
    const raw = await fx.connect().get(stored!);
    expect(raw).not.toContain(token);
    expect(raw).not.toContain('accessToken');
    const before = tokens.tokenRequests();
    const other = instance(ns, { encryptionKey: key.toString('base64') });
    expect((await other.client.getJSON<{ token: string }>('x')).token).toBe(token);
    expect(tokens.tokenRequests()).toBe(before);
  });

  it('treats a token sealed with another key as absent and reports it once', async () => {
    const ns = fx.namespace();
    await instance(ns, { encryptionKey: key }).client.get('x');
    const events: SluiceEvent[] = [];
    const wrong = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, encryptionKey: Buffer.alloc(32, 9), onEvent: (e) => events.push(e) }));
    const [stored] = await fx.connect().keys(`${ns}:token:*`);
    const cacheKey = stored!.slice(`${ns}:token:{`.length, -1);
    expect(await wrong.get(cacheKey)).toBeUndefined();
    expect(await wrong.get(cacheKey)).toBeUndefined();
    expect(events).toEqual([{ type: 'redis.token.unreadable', key: cacheKey, reason: 'undecryptable' }]);
  });

  it('refuses a plain value when a key is configured (it was not written by a trusted instance)', async () => {
    const ns = fx.namespace();
    const plain = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns }));
    const token = { accessToken: 'planted', tokenType: 'Bearer', expiresAt: Date.now() + 60_000, expiresIn: 60_000 };
    await plain.set('k', token, token.expiresAt);
    const events: SluiceEvent[] = [];
    const sealed = fx.track(new RedisTokenCache({ redis: fx.connect(), namespace: ns, encryptionKey: key, onEvent: (e) => events.push(e) }));
    expect(await sealed.get('k')).toBeUndefined();
    expect(events).toMatchObject([{ type: 'redis.token.unreadable', reason: 'unencrypted' }]);
  });
});
