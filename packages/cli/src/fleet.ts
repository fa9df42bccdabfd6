import type { RateLimiter } from '@sluice/core';
import { RedisRateLimiter, RedisTokenCache } from '@sluice/redis';
import type { Terminal } from './terminal.js';

/** Environment variable with the key that seals tokens in Redis (32 bytes, base64), optional. */
export const TOKEN_CACHE_KEY_ENV = 'SLUICE_TOKEN_CACHE_KEY';

/** The token cache every worker (and the enqueuer) shares in the queue's Redis: one token request for all. */
export function fleetTokenCache(redisURL: string, terminal: Terminal): RedisTokenCache {
  const key = terminal.env[TOKEN_CACHE_KEY_ENV];
  return new RedisTokenCache({ redis: redisURL, ...(key ? { encryptionKey: key } : {}) });
}

/** Rate budgets shared in Redis, one per service origin and rate: every process with the same one shares it. */
export class FleetRates {
  private readonly made = new Map<string, RedisRateLimiter>();

  constructor(private readonly redisURL: string) {}

  /** The limiter for `service` at `rate` (none without a rate), as a view a client may close without closing it. */
  of(service: string, rate: number | undefined, burst: number | undefined): RateLimiter | undefined {
    if (rate === undefined) return undefined;
    const origin = new URL(service).origin;
    const key = `${origin}|${rate}|${burst ?? 1}`;
    let limiter = this.made.get(key);
    if (limiter === undefined) {
      limiter = new RedisRateLimiter({ redis: this.redisURL, key: `sluice-export:${origin}`, requestsPerSecond: rate, burst: burst ?? 1, maxQueue: 100_000 });
      this.made.set(key, limiter);
    }
    const shared = limiter;
    // Each partition's client closes its rate limiter with it: it gets a view without close().
    return { take: (signal, failFast) => shared.take(signal, failFast) };
  }

  close(): void {
    for (const l of this.made.values()) l.close();
    this.made.clear();
  }
}
