import { createHash } from 'node:crypto';
import { ConfigError } from '@sluice/core';
import { Redis } from 'ioredis';

/** A Redis connection: an ioredis client of the caller's (left open on close), or a `redis://` URL. */
export type RedisConnection = Redis | string;

/** The connection a component uses, and whether it must close it. */
export interface OpenedConnection {
  readonly redis: Redis;
  readonly owned: boolean;
}

/**
 * Uses the caller's client as it is, or connects to a URL with settings for a dependency that may be
 * down: few retries per command (our own timeout bounds each call anyway) and a short connect timeout.
 */
export function openConnection(option: string, value: unknown): OpenedConnection {
  if (typeof value === 'string') {
    if (!/^rediss?:\/\//.test(value)) throw new ConfigError(option, 'must be an ioredis client or a redis:// or rediss:// URL');
    const redis = new Redis(value, { maxRetriesPerRequest: 1, connectTimeout: 2000, lazyConnect: false });
    // Errors surface through command results and the unavailable event; an unhandled 'error' would crash.
    redis.on('error', () => undefined);
    return { redis, owned: true };
  }
  if (value instanceof Redis || isRedisLike(value)) return { redis: value as Redis, owned: false };
  throw new ConfigError(option, 'must be an ioredis client or a redis:// or rediss:// URL');
}

/** An ioredis client from another copy of the package (instanceof fails across copies). */
function isRedisLike(value: unknown): boolean {
  const v = value as Partial<Redis> | null;
  return typeof v === 'object' && v !== null && typeof v.evalsha === 'function' && typeof v.duplicate === 'function' && typeof v.status === 'string';
}

/** Whether commands may be sent now; while ioredis reconnects they would only sit in its offline queue. */
export function canSend(redis: Redis): boolean {
  const { status } = redis;
  return status === 'ready' || status === 'connect' || status === 'connecting' || status === 'wait';
}

/** The error of a command that did not answer in time. */
export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

/** `promise`, or a {@link RedisTimeoutError} after `ms`. */
export function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisTimeoutError(ms)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A Lua script run by its SHA1 (EVALSHA), loaded with EVAL the first time a server lacks it. */
export class LuaScript {
  private readonly sha: string;

  constructor(private readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: Redis, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Checks that a namespace is usable as a key prefix. */
export function namespaceOption(option: string, value: unknown): string {
  if (value === undefined) return 'sluice';
  if (typeof value !== 'string' || value === '' || /[\s{}]/.test(value)) throw new ConfigError(option, 'must be a non-empty string without spaces or braces');
  return value;
}

/** Checks a duration option in ms (> 0), or returns its default. */
export function msOption(option: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new ConfigError(option, `must be a number of ms > 0, got ${String(value)}`);
  return value;
}
