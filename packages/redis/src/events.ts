/** Which part of `@sluice/redis` reports an event. */
export type RedisComponent = 'token-cache' | 'rate-limiter';

declare module '@sluice/core' {
  interface SluiceEventMap {
    /**
     * Redis stopped answering (refused, timed out, or an error reply): `component` now works without it
     * (tokens acquired directly, a local share of the rate). Reported once per outage, not per request.
     */
    'redis.unavailable': { component: RedisComponent; reason: string };
    /** Redis answers again after an outage of `downMs` ms: `component` shares through it again. */
    'redis.recovered': { component: RedisComponent; downMs: number };
    /**
     * A stored token could not be read (`undecryptable`: another encryption key or a tampered value;
     * `unencrypted`: plain text where an encryption key is configured; `malformed`): treated as absent,
     * so this instance acquires a token and overwrites it. Reported once per key until a read succeeds.
     */
    'redis.token.unreadable': { key: string; reason: 'undecryptable' | 'unencrypted' | 'malformed' };
  }
}
