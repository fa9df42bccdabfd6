/**
 * `@sluice/redis`: Redis for applications running many instances. {@link RedisTokenCache} is one OAuth
 * token cache for all of them (one token request however many instances start at once, encrypted at
 * rest), {@link RedisRateLimiter} one rate budget for all of them. Both keep requests working when Redis
 * is down, and report the outage once.
 *
 * @packageDocumentation
 */
import './events.js';

export { RedisTokenCache, type RedisTokenCacheOptions } from './token-cache.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './rate-limiter.js';
export { RedisTimeoutError, type RedisConnection } from './connection.js';
export type { RedisComponent } from './events.js';
