import type { RetryBudgetOptions } from './options.js';
import { SlidingCounter } from './sliding-counter.js';

/**
 * A client-wide retry budget: over the last `window` ms, retries may not exceed
 * `ratio * requests + minRetriesPerSecond * window / 1000`. Each first attempt is recorded with
 * `recordRequest()`; each retry asks `tryRetry()`, which spends budget only when it says yes. So a
 * dependency that fails every request sees at most `(1 + ratio)` times the offered load plus a small
 * constant, however large `maxAttempts` is.
 *
 * @example
 * ```ts
 * const budget = new RetryBudget({ ratio: 0.2, minRetriesPerSecond: 10, window: 10_000 })
 * budget.recordRequest()
 * if (budget.tryRetry()) retry()
 * ```
 */
export class RetryBudget {
  // first: requests, second: retries.
  private readonly counter: SlidingCounter;
  private readonly floor: number;

  constructor(private readonly options: Required<RetryBudgetOptions>, now?: () => number) {
    this.counter = new SlidingCounter(options.window, 10, now);
    this.floor = (options.minRetriesPerSecond * options.window) / 1000;
  }

  /** Counts one request (its first attempt). */
  recordRequest(): void {
    this.counter.add(1, 0);
  }

  /** Whether one more retry fits the budget; if so it is counted. */
  tryRetry(): boolean {
    const [requests, retries] = this.counter.sums();
    if (retries + 1 > this.options.ratio * requests + this.floor) return false;
    this.counter.add(0, 1);
    return true;
  }
}
