interface PendingWait {
  timer: ReturnType<typeof setTimeout>;
  reject(reason: unknown): void;
}

/**
 * The retry waits of one client, ended together by `client.close()`. The client holds no abort listener
 * per wait on its close signal (1,000 requests waiting to retry used to add 1,000 listeners and make Node
 * print `MaxListenersExceededWarning`): `close()` walks this set instead. A wait adds one listener to the
 * request's own signal, removed the moment the wait ends.
 *
 * @example
 * ```ts
 * const waits = new ClosableWaits()
 * await waits.sleep(500, request.signal)   // rejects at once on waits.close(reason)
 * ```
 */
export class ClosableWaits {
  private readonly pending = new Set<PendingWait>();
  private closedWith: { reason: unknown } | undefined;

  /** How many waits are running. */
  get size(): number {
    return this.pending.size;
  }

  /** Waits `ms`; rejects with the signal's reason as soon as it aborts, or with the close reason. */
  sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith.reason);
    return new Promise((resolve, reject) => {
      const end = (): void => {
        clearTimeout(wait.timer);
        this.pending.delete(wait);
        signal?.removeEventListener('abort', onAbort);
      };
      const onAbort = (): void => {
        end();
        reject(signal!.reason);
      };
      const wait: PendingWait = {
        timer: setTimeout(() => {
          end();
          resolve();
        }, ms),
        reject: (reason) => {
          end();
          reject(reason);
        },
      };
      this.pending.add(wait);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Rejects every running wait with `reason`, and every later one. */
  close(reason: unknown): void {
    this.closedWith = { reason };
    for (const wait of [...this.pending]) wait.reject(reason);
  }
}
