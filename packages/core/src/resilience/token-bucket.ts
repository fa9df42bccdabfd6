import { RateLimitError } from '../errors.js';
import type { RateLimitOptions } from './options.js';
import { WaitQueue } from './wait-queue.js';

// Float error must not turn a full token into 0.9999999 and a 0 ms timer loop.
const EPSILON = 1e-9;

/**
 * A token bucket: `burst` tokens at most, refilled at `requestsPerSecond`. `take()` answers `undefined`
 * when a token was free (no promise, no timer: the cheap path), or a promise that resolves when the
 * caller's turn comes; waiters are served first come, first served by one timer that exists only while
 * someone waits. Over any interval of `t` seconds at most `burst + requestsPerSecond * t` tokens go out.
 *
 * @example
 * ```ts
 * const bucket = new TokenBucket({ requestsPerSecond: 10, burst: 2, maxQueue: 100, failFast: false })
 * const wait = bucket.take(signal)
 * if (wait) await wait
 * ```
 */
export class TokenBucket {
  private tokens: number;
  private last: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly queue = new WaitQueue(() => this.stopTimer());
  private readonly rate: number;

  constructor(private readonly options: Required<RateLimitOptions>, private readonly now: () => number = () => performance.now()) {
    this.rate = options.requestsPerSecond / 1000;
    this.tokens = options.burst;
    this.last = now();
  }

  /** Requests waiting for a token. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Takes a token: `undefined` when one was free, else a promise for the caller's turn (rejecting with
   * the signal's reason on abort). Throws {@link RateLimitError} with `failFast` (the option, or the
   * caller's override) or a full queue.
   */
  take(signal: AbortSignal | undefined, failFast = this.options.failFast): Promise<void> | undefined {
    // Newcomers never overtake waiters.
    if (this.queue.size === 0) {
      this.refill();
      if (this.tokens >= 1 - EPSILON) {
        this.tokens -= 1;
        return undefined;
      }
    }
    if (failFast) throw new RateLimitError('no-token', this.msUntilToken(), this.describe());
    if (this.queue.size >= this.options.maxQueue) throw new RateLimitError('queue-full', this.msUntilToken(), this.describe());
    const turn = this.queue.wait(signal);
    this.schedule();
    return turn;
  }

  /** Rejects every waiter with `reason` and stops the timer. */
  close(reason: unknown): void {
    this.stopTimer();
    this.queue.rejectAll(reason);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.options.burst, this.tokens + (now - this.last) * this.rate);
    this.last = now;
  }

  private msUntilToken(): number {
    return Math.max(0, (1 - this.tokens) / this.rate);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.queue.size === 0) return;
    this.refill();
    this.timer = setTimeout(this.drain, Math.ceil(this.msUntilToken()));
  }

  private readonly drain = (): void => {
    this.timer = undefined;
    this.refill();
    while (this.tokens >= 1 - EPSILON && this.queue.size > 0) {
      this.tokens -= 1;
      this.queue.grantNext();
    }
    this.schedule();
  };

  private stopTimer(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private describe(): string {
    return `${this.options.requestsPerSecond}/s (burst ${this.options.burst})`;
  }
}
