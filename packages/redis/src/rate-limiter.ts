import {
  checkOptionKeys, ConfigError, RateLimitError, SluiceError, type RateLimiter, type SluiceEventListener,
} from '@sluice/core';
import type { Redis } from 'ioredis';
import { LuaScript, msOption, namespaceOption, openConnection, type RedisConnection } from './connection.js';
import { RedisHealth, sinkFor } from './health.js';
import { LocalSchedule } from './local-schedule.js';

/**
 * Options of {@link RedisRateLimiter}.
 *
 * @example
 * ```ts
 * const options: RedisRateLimiterOptions = { redis: 'redis://127.0.0.1:6379', key: 'https://api.example.com', requestsPerSecond: 50, instances: 4 }
 * ```
 */
export interface RedisRateLimiterOptions {
  /** An ioredis client (stays open on close) or a `redis://` URL to connect to. */
  redis: RedisConnection;
  /** Name of the shared budget, usually the API's origin: every limiter with the same key shares one rate. */
  key: string;
  /** Rate of all instances together, requests per second. Required, > 0. */
  requestsPerSecond: number;
  /** Requests that may go at once after a quiet spell, all instances together. Default 1. */
  burst?: number | undefined;
  /** Most requests waiting, all instances together; one more gets {@link RateLimitError}. Default 1000. */
  maxQueue?: number | undefined;
  /** Reject with {@link RateLimitError} instead of waiting. Default false. */
  failFast?: boolean | undefined;
  /**
   * For high rates: slots reserved per Redis round trip. The instance hands them to its next attempts;
   * one not used within an interval of its time is dropped (lost to the others, never sent late). Default 1.
   */
  batch?: number | undefined;
  /** Instances sharing the budget: while Redis is down each one sends `requestsPerSecond / instances`. Default 1. */
  instances?: number | undefined;
  /** Prefix of the Redis key. Default `sluice`. */
  namespace?: string | undefined;
  /** Timeout of each Redis command in ms; a slower answer counts as an outage. Default 500. */
  commandTimeout?: number | undefined;
  /** While Redis is down: how often it is probed in the background, in ms. Default 1000. */
  probeInterval?: number | undefined;
  /** Receives `redis.unavailable` and `redis.recovered` events. */
  onEvent?: SluiceEventListener | undefined;
}

const OPTION_KEYS = [
  'redis', 'key', 'requestsPerSecond', 'burst', 'maxQueue', 'failFast', 'batch', 'instances', 'namespace', 'commandTimeout', 'probeInterval', 'onEvent',
];

// GCRA with reservation, on the Redis clock: reserves ARGV[4] consecutive slots, one emission interval
// apart after the theoretical arrival time (TAT), and answers how long from now the first may go
// (negative within the burst; slot i goes `i` intervals later). A last slot beyond ARGV[3] reserves nothing.
const GCRA = new LuaScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
if tat < now then tat = now end
local early = interval * tonumber(ARGV[2])
local slot = tat + interval * tonumber(ARGV[4])
local first = tat + interval - now - early
if slot - now - early > tonumber(ARGV[3]) then return {0, tostring(first)} end
redis.call('SET', KEYS[1], string.format('%.3f', slot), 'PX', math.ceil(slot - now) + 1000)
return {1, tostring(first)}`);

/**
 * A {@link RateLimiter} whose budget lives in Redis, so that every instance of an application together
 * stays under one rate (`rateLimit: new RedisRateLimiter(...)` in `createClient`). Each attempt costs one
 * Redis round trip (or one per `batch` attempts): a GCRA script reserves the attempt's slot atomically,
 * and the attempt waits locally until that slot. Over any `t` seconds all instances send at most
 * `burst + requestsPerSecond * t`.
 *
 * When Redis is down or slower than `commandTimeout`, attempts are never failed for it: they take slots
 * of a local schedule of `requestsPerSecond / instances` (the instance's share) after the shared slots
 * already granted, the outage is reported once, a background probe notices the recovery, and the shared
 * budget takes over again after the local slots already granted.
 *
 * @example
 * ```ts
 * import { createClient } from '@sluice/core'
 * import { RedisRateLimiter } from '@sluice/redis'
 * const rateLimit = new RedisRateLimiter({ redis: 'redis://127.0.0.1:6379', key: 'erp', requestsPerSecond: 20, instances: 4 })
 * const client = createClient({ baseURL: 'https://erp.example.com/api', rateLimit })
 * ```
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly redis: Redis;
  private readonly owned: boolean;
  private readonly redisKey: string;
  private readonly interval: number;
  private readonly burst: number;
  private readonly maxQueue: number;
  private readonly failFast: boolean;
  private readonly batch: number;
  /** Send times (performance.now ms) of slots reserved ahead with `batch`, earliest first. */
  private readonly held: number[] = [];
  private refilling: Promise<boolean> | undefined;
  private readonly health: RedisHealth;
  private readonly local: LocalSchedule;
  private readonly localInterval: number;
  private readonly sleepers = new Set<{ timer: ReturnType<typeof setTimeout>; reject: (reason: unknown) => void }>();
  /** Local time until which attempts granted by one budget may still be waiting to go (handover point). */
  private sharedUntil = 0;
  private localUntil = 0;
  private waiting = 0;
  private closedWith: unknown;

  constructor(options: RedisRateLimiterOptions) {
    if (options === null || typeof options !== 'object') throw new ConfigError('RedisRateLimiter options', 'must be an object');
    checkOptionKeys('', options, OPTION_KEYS, { url: 'redis', client: 'redis', rate: 'requestsPerSecond', limit: 'requestsPerSecond', prefix: 'namespace' });
    if (typeof options.key !== 'string' || options.key === '') throw new ConfigError('key', 'must be a non-empty string naming the shared budget (for example the API origin)');
    const rate = options.requestsPerSecond;
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) throw new ConfigError('requestsPerSecond', `must be a number > 0, got ${String(rate)}`);
    this.burst = integerOption('burst', options.burst, 1, 1);
    this.maxQueue = integerOption('maxQueue', options.maxQueue, 1000, 0);
    this.batch = integerOption('batch', options.batch, 1, 1);
    const instances = integerOption('instances', options.instances, 1, 1);
    if (options.failFast !== undefined && typeof options.failFast !== 'boolean') throw new ConfigError('failFast', `must be a boolean, got ${typeof options.failFast}`);
    this.failFast = options.failFast ?? false;
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new ConfigError('onEvent', 'must be a function');
    const namespace = namespaceOption('namespace', options.namespace);
    const commandTimeout = msOption('commandTimeout', options.commandTimeout, 500);
    const probeInterval = msOption('probeInterval', options.probeInterval, 1000);
    const { redis, owned } = openConnection('redis', options.redis);
    this.redis = redis;
    this.owned = owned;
    this.redisKey = `${namespace}:rate:{${options.key}}`;
    this.interval = 1000 / rate;
    this.health = new RedisHealth(redis, 'rate-limiter', sinkFor(options.onEvent), commandTimeout, probeInterval);
    // This instance's share: the rate and the burst divided by the instances.
    this.localInterval = this.interval * instances;
    this.local = new LocalSchedule(this.localInterval, Math.max(1, Math.floor(this.burst / instances)));
  }

  /** Takes one permit from the shared budget (or the local share while Redis is down). */
  take(signal: AbortSignal | undefined, failFast = this.failFast): Promise<void> | undefined {
    if (this.closedWith !== undefined) throw this.closedWith;
    if (this.waiting >= this.maxQueue && !failFast) throw new RateLimitError('queue-full', this.interval, this.describe());
    if (this.health.down) {
      this.health.probe();
      return this.takeLocal(signal, failFast);
    }
    return this.takeShared(signal, failFast);
  }

  /** Whether Redis was unusable at the last command and has not answered a probe since. */
  get unavailable(): boolean {
    return this.health.down;
  }

  /** Rejects waiting attempts with `reason`; closes the Redis connection when it was made from a URL. */
  close(reason: unknown = new SluiceError('The rate limiter is closed')): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    for (const sleeper of this.sleepers) {
      clearTimeout(sleeper.timer);
      sleeper.reject(reason);
    }
    this.sleepers.clear();
    if (this.owned) this.redis.disconnect();
  }

  private async takeShared(signal: AbortSignal | undefined, failFast: boolean): Promise<void> {
    this.waiting++;
    try {
      // Back from an outage: this instance's locally granted attempts go first, so the two budgets never add up.
      const handover = this.localUntil - performance.now();
      if (handover > 0) {
        if (failFast) throw new RateLimitError('no-token', handover, this.describe());
        await this.sleep(handover, signal);
      }
      const at = await this.sharedPermit(failFast);
      if (at === undefined) {
        if (this.closedWith !== undefined) throw this.closedWith;
        return await this.waitLocal(signal, failFast);
      }
      const wait = at - performance.now();
      if (wait > 0) await this.sleep(wait, signal);
    } finally {
      this.waiting--;
    }
  }

  /** When this attempt may go (performance.now ms), by the shared budget; undefined when Redis cannot be used. */
  private async sharedPermit(failFast: boolean): Promise<number | undefined> {
    if (this.batch === 1 || failFast) return (await this.reserve(1, failFast))?.[0];
    for (;;) {
      const now = performance.now();
      while (this.held.length > 0 && this.held[0]! < now - this.interval) this.held.shift();
      const at = this.held.shift();
      if (at !== undefined) return at;
      // One round trip refills for every attempt waiting here.
      this.refilling ??= this.reserve(this.batch, false)
        .then((times) => times !== undefined && this.held.push(...times) > 0)
        .finally(() => {
          this.refilling = undefined;
        });
      if (!(await this.refilling)) return undefined;
    }
  }

  /** Reserves `count` consecutive shared slots: their send times, or undefined when Redis cannot be used. */
  private async reserve(count: number, failFast: boolean): Promise<number[] | undefined> {
    // The shared queue: a slot further away than maxQueue intervals means maxQueue attempts wait before it.
    const limit = failFast ? 0 : this.maxQueue * this.interval;
    let reply: [number, string];
    try {
      reply = await this.health.run(() => GCRA.run(this.redis, [this.redisKey], [this.interval, this.burst, limit, count])) as [number, string];
    } catch {
      return undefined;
    }
    const first = Number(reply[1]);
    if (reply[0] !== 1) throw new RateLimitError(failFast ? 'no-token' : 'queue-full', first, this.describe());
    const now = performance.now();
    const times = Array.from({ length: count }, (_, i) => now + Math.max(0, first + i * this.interval));
    this.sharedUntil = Math.max(this.sharedUntil, times[count - 1]!);
    return times;
  }

  private async takeLocal(signal: AbortSignal | undefined, failFast: boolean): Promise<void> {
    this.waiting++;
    try {
      await this.waitLocal(signal, failFast);
    } finally {
      this.waiting--;
    }
  }

  /** The local share: its slots start after the shared ones this instance was already granted. */
  private async waitLocal(signal: AbortSignal | undefined, failFast: boolean): Promise<void> {
    const now = performance.now();
    if (this.sharedUntil > now) this.local.notBefore(this.sharedUntil);
    const wait = this.local.reserve(now, failFast ? 0 : this.maxQueue * this.localInterval);
    if (wait === undefined) throw new RateLimitError(failFast ? 'no-token' : 'queue-full', this.localInterval, this.describe());
    this.localUntil = Math.max(this.localUntil, now + wait);
    if (wait > 0) await this.sleep(wait, signal);
  }

  private sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        clearTimeout(sleeper.timer);
        this.sleepers.delete(sleeper);
        reject(signal!.reason);
      };
      const sleeper = {
        timer: setTimeout(() => {
          this.sleepers.delete(sleeper);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, Math.ceil(ms)),
        reject: (reason: unknown) => {
          signal?.removeEventListener('abort', onAbort);
          reject(reason);
        },
      };
      this.sleepers.add(sleeper);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private describe(): string {
    return `${Math.round(1000 / this.interval * 1000) / 1000}/s shared (burst ${this.burst})`;
  }
}

function integerOption(option: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) throw new ConfigError(option, `must be an integer >= ${min}, got ${String(value)}`);
  return value;
}
