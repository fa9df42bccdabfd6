import { BulkheadRejectedError } from '../errors.js';
import type { BulkheadOptions } from './options.js';
import { WaitQueue } from './wait-queue.js';

/**
 * A concurrency cap: at most `maxConcurrent` holders at once, then a bounded FIFO queue. A released slot
 * passes straight to the oldest waiter; an aborted waiter leaves the queue at once.
 *
 * @example
 * ```ts
 * const bulkhead = new Bulkhead({ maxConcurrent: 4, maxQueue: 10 })
 * const wait = bulkhead.acquire(signal)
 * if (wait) await wait
 * try { await work() } finally { bulkhead.release() }
 * ```
 */
export class Bulkhead {
  private active = 0;
  private readonly queue = new WaitQueue();

  constructor(private readonly options: Required<BulkheadOptions>) {}

  /** Slots in use. */
  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.size;
  }

  /**
   * Takes a slot: `undefined` when one was free, else a promise for the caller's turn (rejecting with the
   * signal's reason on abort). Throws {@link BulkheadRejectedError} when the queue is full.
   */
  acquire(signal: AbortSignal | undefined): Promise<void> | undefined {
    if (this.active < this.options.maxConcurrent) {
      this.active++;
      return undefined;
    }
    if (this.queue.size >= this.options.maxQueue) throw new BulkheadRejectedError(this.options.maxConcurrent, this.options.maxQueue);
    return this.queue.wait(signal);
  }

  /** Gives a slot back (to the oldest waiter, if any). */
  release(): void {
    if (!this.queue.grantNext()) this.active--;
  }

  /** Rejects every waiter with `reason`. */
  close(reason: unknown): void {
    this.queue.rejectAll(reason);
  }
}
