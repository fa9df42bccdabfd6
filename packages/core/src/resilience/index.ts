/**
 * Resilience mechanisms of the core client, one small module each: token-bucket rate limiting, per-origin
 * circuit breakers, a client-wide retry budget, a bulkhead, and per-origin pauses on `Retry-After`.
 * The client wires them in; they are exported for use on their own and for tests.
 *
 * @packageDocumentation
 */
export { TokenBucket } from './token-bucket.js';
export { CircuitBreakers, OriginCircuit, type CircuitState, type CircuitStateChange, type CircuitTicket, type AttemptOutcome, type CircuitBreakerSettings } from './circuit-breaker.js';
export { RetryBudget } from './retry-budget.js';
export { Bulkhead } from './bulkhead.js';
export { OriginPauses } from './origin-pause.js';
export { WaitQueue } from './wait-queue.js';
export { SlidingCounter } from './sliding-counter.js';
export { ClosableWaits } from './abort-listeners.js';
export {
  RESILIENCE_DEFAULTS, resolveResilience, isRateLimiter,
  type RateLimitOptions, type RateLimiter, type CircuitBreakerOptions, type RetryBudgetOptions, type BulkheadOptions,
  type PauseOnRetryAfterOptions, type ResolvedResilience, type ResilienceInput,
} from './options.js';
