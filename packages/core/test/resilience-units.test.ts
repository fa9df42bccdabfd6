import { describe, expect, it } from 'vitest';
import {
  CircuitBreakers, CircuitOpenError, ConfigError, createClient, RateLimitError, RESILIENCE_DEFAULTS, RetryBudget, SlidingCounter, TokenBucket,
  type CircuitStateChange,
} from '@sluice/core';

/** A clock the test moves by hand. */
function fakeClock(): { now: () => number; advance(ms: number): void } {
  let t = 1000;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

describe('SlidingCounter', () => {
  it('sums events of the last window and forgets older ones bucket by bucket', () => {
    const clock = fakeClock();
    const counter = new SlidingCounter(1000, 10, clock.now);
    counter.add(1, 0);
    clock.advance(500);
    counter.add(2, 1);
    expect(counter.sums()).toEqual([3, 1]);
    clock.advance(600);
    expect(counter.sums()).toEqual([2, 1]);
    clock.advance(5000);
    expect(counter.sums()).toEqual([0, 0]);
  });
});

describe('RetryBudget', () => {
  it('allows ratio x requests plus the per-second floor, then refuses until the window moves on', () => {
    const clock = fakeClock();
    const budget = new RetryBudget({ ratio: 0.2, minRetriesPerSecond: 1, window: 2000 }, clock.now);
    for (let i = 0; i < 10; i++) budget.recordRequest();
    // 0.2 * 10 + 1 * 2 s = 4 retries.
    const granted = Array.from({ length: 6 }, () => budget.tryRetry()).filter(Boolean).length;
    expect(granted).toBe(4);
    clock.advance(2500);
    expect(budget.tryRetry()).toBe(true);
  });
});

describe('TokenBucket arithmetic', () => {
  it('fail-fast says how long until the next token', () => {
    const clock = fakeClock();
    const bucket = new TokenBucket({ requestsPerSecond: 4, burst: 2, maxQueue: 10, failFast: true }, clock.now);
    expect(bucket.take(undefined)).toBeUndefined();
    expect(bucket.take(undefined)).toBeUndefined();
    let error: unknown;
    try { bucket.take(undefined); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBe(250);
    clock.advance(250);
    expect(bucket.take(undefined)).toBeUndefined();
    // The bucket never holds more than burst.
    clock.advance(60_000);
    expect(bucket.take(undefined)).toBeUndefined();
    expect(bucket.take(undefined)).toBeUndefined();
    expect(() => bucket.take(undefined)).toThrow(RateLimitError);
  });
});

describe('CircuitBreakers state machine', () => {
  const settings = { ...RESILIENCE_DEFAULTS.circuitBreaker, consecutiveFailures: 2, openDuration: 1000 };

  it('closed -> open -> half-open -> closed, with a late outcome from before the change ignored', () => {
    const clock = fakeClock();
    const changes: CircuitStateChange[] = [];
    const breakers = new CircuitBreakers({ ...settings, onStateChange: (c) => changes.push(c) }, clock.now);
    const o = 'https://a.example';
    const slow = breakers.acquire(o);
    breakers.record(breakers.acquire(o), 'failure');
    breakers.record(breakers.acquire(o), 'failure');
    expect(breakers.state(o)).toBe('open');
    // An attempt sent while closed and answering after the circuit opened does not close it.
    breakers.record(slow, 'success');
    expect(breakers.state(o)).toBe('open');
    expect(() => breakers.acquire(o)).toThrow(CircuitOpenError);
    clock.advance(1000);
    const probe = breakers.acquire(o);
    expect(() => breakers.acquire(o)).toThrow(/half-open/);
    breakers.record(probe, 'success');
    expect(breakers.state(o)).toBe('closed');
    expect(changes.map((c) => c.to)).toEqual(['open', 'half-open', 'closed']);
  });

  it('an aborted probe frees its slot without a verdict', () => {
    const clock = fakeClock();
    const breakers = new CircuitBreakers(settings, clock.now);
    const o = 'https://b.example';
    breakers.record(breakers.acquire(o), 'failure');
    breakers.record(breakers.acquire(o), 'failure');
    clock.advance(1000);
    breakers.record(breakers.acquire(o), 'neutral');
    expect(breakers.state(o)).toBe('half-open');
    breakers.record(breakers.acquire(o), 'success');
    expect(breakers.state(o)).toBe('closed');
  });

  it('a success only ends a failure run once its body is through', () => {
    const breakers = new CircuitBreakers(settings);
    const o = 'https://c.example';
    breakers.record(breakers.acquire(o), 'failure');
    breakers.record(breakers.acquire(o), 'success');
    breakers.recordLateFailure(o);
    expect(breakers.state(o)).toBe('open');
    const other = 'https://d.example';
    breakers.record(breakers.acquire(other), 'failure');
    breakers.record(breakers.acquire(other), 'success');
    breakers.recordBodyDone(other);
    breakers.record(breakers.acquire(other), 'failure');
    expect(breakers.state(other)).toBe('closed');
  });
});

describe('resilience options', () => {
  it.each([
    [{ rateLimit: { requestsPerSecond: 0 } }, 'rateLimit.requestsPerSecond'],
    [{ rateLimit: { requestsPerSecond: 5, burst: 0.5 } }, 'rateLimit.burst'],
    [{ rateLimit: { requestsPerSecond: 5, failFast: 'yes' } }, 'rateLimit.failFast'],
    [{ circuitBreaker: { failureRatio: 1.5 } }, 'circuitBreaker.failureRatio'],
    [{ circuitBreaker: { halfOpenProbes: 0 } }, 'circuitBreaker.halfOpenProbes'],
    [{ circuitBreaker: { onStateChange: 'log' } }, 'circuitBreaker.onStateChange'],
    [{ retryBudget: { ratio: -1 } }, 'retryBudget.ratio'],
    [{ bulkhead: { maxConcurrent: 0 } }, 'bulkhead.maxConcurrent'],
    [{ bulkhead: 3 }, 'bulkhead'],
    [{ pauseOnRetryAfter: { maxPause: -5 } }, 'pauseOnRetryAfter.maxPause'],
  ])('%j is rejected naming %s', (options, option) => {
    let error: unknown;
    try { createClient(options as never); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe(option);
  });

  it('fills in the documented defaults', () => {
    const { resilience } = createClient({ rateLimit: { requestsPerSecond: 10 }, circuitBreaker: true, bulkhead: { maxConcurrent: 8 } }).options;
    expect(resilience.rateLimit).toEqual({ requestsPerSecond: 10, burst: 1, maxQueue: 1000, failFast: false });
    expect(resilience.circuitBreaker).toMatchObject({
      consecutiveFailures: 5, failureRatio: 0.5, minimumRequests: 20, window: 10_000, openDuration: 10_000, halfOpenProbes: 1,
    });
    expect(resilience.retryBudget).toEqual({ ratio: 0.2, minRetriesPerSecond: 10, window: 10_000 });
    expect(resilience.bulkhead).toEqual({ maxConcurrent: 8, maxQueue: 1000 });
    expect(resilience.pauseOnRetryAfter).toEqual({ maxPause: 60_000 });
    const plain = createClient().options.resilience;
    expect([plain.rateLimit, plain.circuitBreaker, plain.bulkhead]).toEqual([undefined, undefined, undefined]);
  });
});
