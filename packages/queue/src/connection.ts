import { Redis } from 'ioredis';

/** Hides credentials of a `redis://user:password@host` URL in messages. */
export function shownURL(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/** Checks a `redis://` or `rediss://` URL, with a readable error. */
export function checkRedisURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`not a Redis URL: ${JSON.stringify(url.slice(0, 60))} (expected redis://host:6379)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new TypeError(`a Redis URL starts with redis:// or rediss://, got ${parsed.protocol}`);
  return url;
}

/** A connection for BullMQ workers and queue events (blocking commands: no per-request retry limit). */
export function blockingConnection(url: string): Redis {
  const redis = new Redis(checkRedisURL(url), { maxRetriesPerRequest: null });
  redis.on('error', () => undefined); // ioredis reconnects by itself; BullMQ reports what fails
  return redis;
}

/** A connection that fails at once when Redis is down (for enqueueing: all or nothing, now). */
export async function eagerConnection(url: string, timeoutMs: number): Promise<Redis> {
  const redis = new Redis(checkRedisURL(url), { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null, connectTimeout: timeoutMs, enableOfflineQueue: false });
  let first: unknown;
  redis.on('error', (error) => { first ??= error; });
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw first ?? error;
  }
  return redis;
}
