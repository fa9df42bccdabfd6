interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/**
 * A FIFO of callers waiting for a slot or a token. An aborted waiter leaves the queue the moment its
 * signal fires (its place is free at once), and `onEmpty` lets the owner drop its timer when nobody
 * waits any more.
 *
 * @example
 * ```ts
 * const queue = new WaitQueue(() => clearTimeout(timer))
 * await queue.wait(signal)   // resolves when the owner calls queue.grantNext()
 * ```
 */
export class WaitQueue {
  // A Set keeps insertion order and deletes in O(1), which is all a cancellable FIFO needs.
  private readonly waiters = new Set<Waiter>();

  constructor(private readonly onEmpty?: () => void) {}

  /** How many callers are waiting. */
  get size(): number {
    return this.waiters.size;
  }

  /** Waits until granted; rejects with the signal's reason as soon as it aborts. */
  wait(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal !== undefined) {
        waiter.onAbort = () => {
          this.waiters.delete(waiter);
          if (this.waiters.size === 0) this.onEmpty?.();
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.waiters.add(waiter);
    });
  }

  /** Lets the oldest waiter go; false when nobody waits. */
  grantNext(): boolean {
    for (const waiter of this.waiters) {
      this.remove(waiter);
      waiter.resolve();
      return true;
    }
    return false;
  }

  /** Lets every waiter go. */
  grantAll(): void {
    while (this.grantNext());
  }

  /** Rejects every waiter with `reason` (used by `client.close()`). */
  rejectAll(reason: unknown): void {
    for (const waiter of [...this.waiters]) {
      this.remove(waiter);
      waiter.reject(reason);
    }
  }

  private remove(waiter: Waiter): void {
    this.waiters.delete(waiter);
    if (waiter.onAbort !== undefined) waiter.signal!.removeEventListener('abort', waiter.onAbort);
  }
}
