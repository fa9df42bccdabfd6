// Many instances of one app: one token and one rate budget for all of them, through Redis.
// The README of @sluice/redis shows this file; `npm run typecheck` compiles it.
import { createClient } from '@sluice/core';
import { oauth2 } from '@sluice/oauth';
import { RedisRateLimiter, RedisTokenCache } from '@sluice/redis';
import { Redis } from 'ioredis';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
redis.on('error', () => undefined); // outages arrive as redis.unavailable events instead

const onEvent = (e: { type: string }): void => console.log('sluice event', e);

const tokenCache = new RedisTokenCache({
  redis,
  encryptionKey: process.env.TOKEN_CACHE_KEY, // 32 random bytes, base64 (`openssl rand -base64 32`); optional
  onEvent,
});
const rateLimit = new RedisRateLimiter({
  redis,
  key: 'erp.example.com', // every instance with this key shares the budget
  requestsPerSecond: 20, // for all instances together
  burst: 5,
  instances: 4, // while Redis is down each instance sends 20 / 4 per second
  onEvent,
});

const client = createClient({
  baseURL: 'https://erp.example.com/api/v1',
  rateLimit,
  onEvent,
  plugins: [oauth2({
    clientId: 'orders-sync',
    clientSecret: process.env.ERP_CLIENT_SECRET,
    tokenURL: 'https://login.example.com/oauth2/token',
    grantType: 'client_credentials',
    tokenCache,
  })],
});

export async function main(): Promise<void> {
  try {
    const orders = await client.getJSON<{ value: unknown[] }>('orders');
    console.log(orders.value.length, 'orders');
  } finally {
    await client.close(); // also closes the limiter's waiters
    await tokenCache.close(); // the pub/sub connection
    redis.disconnect(); // ours: the cache and limiter leave a passed-in connection open
  }
}
