import { randomUUID } from 'node:crypto';
import { checkOptionKeys, ConfigError, type SluiceEventListener } from '@sluice/core';
import type { Token, TokenCache } from '@sluice/oauth';
import type { Redis } from 'ioredis';
import { LuaScript, msOption, namespaceOption, openConnection, type RedisConnection } from './connection.js';
import { RedisHealth, sinkFor } from './health.js';
import { fingerprint, TokenCodec } from './token-codec.js';
import { TokenReadySignal } from './token-ready.js';

/**
 * Options of {@link RedisTokenCache}.
 *
 * @example
 * ```ts
 * const options: RedisTokenCacheOptions = { redis: 'redis://127.0.0.1:6379', encryptionKey: process.env.TOKEN_KEY }
 * ```
 */
export interface RedisTokenCacheOptions {
  /** An ioredis client (stays open on {@link RedisTokenCache.close}) or a `redis://` URL to connect to. */
  redis: RedisConnection;
  /** Prefix of every key and channel. Default `sluice`. */
  namespace?: string | undefined;
  /** AES-256-GCM key (32 bytes, or their base64): tokens are stored sealed with it. Default: stored as JSON. */
  encryptionKey?: Uint8Array | string | undefined;
  /** How long the instance acquiring a token holds the lock, in ms. Default 10000. */
  lockTtl?: number | undefined;
  /** Longest wait for another instance's token before acquiring directly, in ms. Default 5000. */
  lockWait?: number | undefined;
  /** While waiting: how often Redis is checked besides the pub/sub wake-up, in ms. Default 200. */
  pollInterval?: number | undefined;
  /** Lifetime in ms of a token whose expiry is already past when stored (SPEC 2.2). Default 1000. */
  fallbackLifetime?: number | undefined;
  /** Timeout of each Redis command in ms. Default 1000. */
  commandTimeout?: number | undefined;
  /** While Redis is down: how often it is probed in the background, in ms. Default 1000. */
  probeInterval?: number | undefined;
  /** Receives `redis.unavailable`, `redis.recovered` and `redis.token.unreadable` events. */
  onEvent?: SluiceEventListener | undefined;
}

const OPTION_KEYS = [
  'redis', 'namespace', 'encryptionKey', 'lockTtl', 'lockWait', 'pollInterval', 'fallbackLifetime', 'commandTimeout', 'probeInterval', 'onEvent',
];

// A live token that is not the caller's stale one: {1, value}; else the lock if free: {2}; else {0}.
const ACQUIRE = new LuaScript(`
local v = redis.call('GET', KEYS[1])
if v and (ARGV[1] == '' or string.sub(v, 1, #ARGV[1]) ~= ARGV[1]) then return {1, v} end
if redis.call('SET', KEYS[2], ARGV[2], 'NX', 'PX', ARGV[3]) then return {2} end
return {0}`);
// Store, release the lock only if this instance still owns it, wake the waiters.
const STORE = new LuaScript(`
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
if ARGV[3] ~= '' and redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return 1`);
// Forced refresh: drop the token and take the lock, so other instances wait for the new one.
const REMOVE = new LuaScript(`
redis.call('DEL', KEYS[1])
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0`);

// A failed fetch: release the lock only if this instance still owns it, and wake the waiters to take it.
const RELEASE = new LuaScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1`);

/**
 * A {@link TokenCache} in Redis, shared by every instance of an application (SPEC 2.2), so N instances
 * cost one token request instead of N. Cross-instance single flight: when the token is missing, one
 * instance takes a lock (SET NX with expiry) and acquires it; the others wait for its pub/sub message
 * (polling as a fallback) and take the stored token, or acquire directly after `lockWait`. The lock is
 * released only by its owner (compare-and-delete in Lua): by {@link set}, or by {@link release} when the
 * owner's token request failed, which lets a waiting instance take over at once. A forced refresh deletes the token and takes
 * the lock in one step, so the others wait for its replacement instead of stampeding.
 *
 * Tokens are JSON under `<namespace>:token:{<cache key>}` with the token's expiry as TTL, sealed with
 * AES-256-GCM when `encryptionKey` is given. When Redis is down or slow, every method resolves anyway
 * (a miss, a skipped write) after at most `commandTimeout`, and the outage is reported once.
 *
 * @example
 * ```ts
 * import { RedisTokenCache } from '@sluice/redis'
 * const tokenCache = new RedisTokenCache({ redis: 'redis://127.0.0.1:6379', encryptionKey: process.env.TOKEN_KEY })
 * // oauth2({ ...config, tokenCache }); at shutdown: await tokenCache.close()
 * ```
 */
export class RedisTokenCache implements TokenCache {
  private readonly redis: Redis;
  private readonly owned: boolean;
  private readonly namespace: string;
  private readonly codec: TokenCodec;
  private readonly health: RedisHealth;
  private readonly ready: TokenReadySignal;
  private readonly lockTtl: number;
  private readonly lockWait: number;
  private readonly pollInterval: number;
  private readonly fallbackLifetime: number;
  /** Locks this instance holds, by cache key: the owner value, and whether the next get is its own fetch. */
  private readonly locks = new Map<string, { owner: string; reserved: boolean; until: number }>();
  /** Keys whose unreadable value was reported (once until a read succeeds). */
  private readonly reported = new Set<string>();
  private closed = false;

  constructor(options: RedisTokenCacheOptions) {
    if (options === null || typeof options !== 'object') throw new ConfigError('RedisTokenCache options', 'must be an object');
    checkOptionKeys('', options, OPTION_KEYS, { url: 'redis', client: 'redis', prefix: 'namespace', keyPrefix: 'namespace', key: 'encryptionKey' });
    if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new ConfigError('onEvent', 'must be a function');
    this.namespace = namespaceOption('namespace', options.namespace);
    this.codec = new TokenCodec(options.encryptionKey);
    this.lockTtl = msOption('lockTtl', options.lockTtl, 10_000);
    this.lockWait = msOption('lockWait', options.lockWait, 5000);
    this.pollInterval = msOption('pollInterval', options.pollInterval, 200);
    this.fallbackLifetime = msOption('fallbackLifetime', options.fallbackLifetime, 1000);
    const commandTimeout = msOption('commandTimeout', options.commandTimeout, 1000);
    const probeInterval = msOption('probeInterval', options.probeInterval, 1000);
    const { redis, owned } = openConnection('redis', options.redis);
    this.redis = redis;
    this.owned = owned;
    this.health = new RedisHealth(redis, 'token-cache', sinkFor(options.onEvent), commandTimeout, probeInterval);
    this.ready = new TokenReadySignal(redis, `${this.namespace}:token-ready`);
  }

  /**
   * The stored token, unless it is `stale` (an access token the caller knows was refused). When there is
   * none, resolves `undefined` either at once, with this instance holding the lock (it acquires, then
   * {@link set} releases), or after waiting up to `lockWait` for the instance that holds it.
   */
  async get(key: string, stale?: string): Promise<Token | undefined> {
    if (this.closed || !this.usable()) return undefined;
    const mine = this.locks.get(key);
    if (mine?.reserved && Date.now() < mine.until) {
      mine.reserved = false;
      return undefined;
    }
    const keys = this.keys(key);
    const staleMark = stale === undefined ? '' : fingerprint(stale);
    const owner = randomUUID();
    const deadline = Date.now() + this.lockWait;
    while (!this.closed) {
      const wait = this.ready.arm(key);
      let reply: unknown;
      try {
        reply = await this.health.run(() => ACQUIRE.run(this.redis, keys, [staleMark, owner, this.lockTtl]));
      } catch {
        wait.cancel();
        return undefined;
      }
      const [state, value] = reply as [number, string | undefined];
      if (state === 1) {
        wait.cancel();
        return this.decode(key, value!);
      }
      if (state === 2) {
        wait.cancel();
        this.locks.set(key, { owner, reserved: false, until: Date.now() + this.lockTtl });
        return undefined;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        wait.cancel();
        return undefined;
      }
      await wait.until(Math.min(left, this.pollInterval));
    }
    return undefined;
  }

  /** Stores `token` until `expiresAt` (a short fallback lifetime when that is past), releases this instance's lock, wakes the waiters. */
  async set(key: string, token: Token, expiresAt: number): Promise<void> {
    const lock = this.locks.get(key);
    this.locks.delete(key);
    if (this.closed || !this.usable()) return;
    const remaining = expiresAt - Date.now();
    const ttl = Math.ceil(remaining > 0 ? remaining : this.fallbackLifetime);
    const value = this.codec.encode(key, token);
    try {
      await this.health.run(() => STORE.run(this.redis, this.keys(key), [value, ttl, lock?.owner ?? '', this.ready.channel, key]));
    } catch {
      // Kept by the caller anyway; the outage is reported once by the health check.
    }
  }

  /** Removes the token (forced refresh, SPEC 2.2) and takes the lock, so others wait for this instance's new token. */
  async delete(key: string): Promise<void> {
    if (this.closed || !this.usable()) return;
    const owner = this.locks.get(key)?.owner ?? randomUUID();
    try {
      const locked = await this.health.run(() => REMOVE.run(this.redis, this.keys(key), [owner, this.lockTtl]));
      if (locked === 1 || this.locks.has(key)) this.locks.set(key, { owner, reserved: true, until: Date.now() + this.lockTtl });
    } catch {
      // Nothing to undo: without Redis every instance acquires directly.
    }
  }

  /**
   * The token request this instance made after taking the lock failed: releases the lock if this
   * instance still owns it (compare-and-delete) and wakes the waiting instances, so one of them takes
   * over at once instead of after `lockTtl` or `lockWait`. Does nothing when this instance holds no lock.
   */
  async release(key: string): Promise<void> {
    const lock = this.locks.get(key);
    if (lock === undefined) return;
    this.locks.delete(key);
    if (this.closed || !this.usable()) return;
    try {
      await this.health.run(() => RELEASE.run(this.redis, [this.keys(key)[1]], [lock.owner, this.ready.channel, key]));
    } catch {
      // The lock expires after lockTtl; the outage is reported once by the health check.
    }
  }

  /** Whether Redis was unusable at the last command and has not answered a probe since. */
  get unavailable(): boolean {
    return this.health.down;
  }

  /** Stops the pub/sub connection, and the Redis connection when it was made from a URL. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.ready.close();
    if (this.owned) this.redis.disconnect();
  }

  private usable(): boolean {
    if (!this.health.down) return true;
    this.health.probe();
    return false;
  }

  private keys(key: string): [string, string] {
    // The hash tag keeps a token and its lock in one cluster slot, as the scripts need.
    return [`${this.namespace}:token:{${key}}`, `${this.namespace}:token-lock:{${key}}`];
  }

  private decode(key: string, value: string): Token | undefined {
    const decoded = this.codec.decode(key, value);
    if ('token' in decoded) {
      this.reported.delete(key);
      return decoded.token;
    }
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.health.events.emit('redis.token.unreadable', { key, reason: decoded.unreadable });
    }
    return undefined;
  }
}
