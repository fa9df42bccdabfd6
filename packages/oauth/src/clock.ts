/** Longest delay setTimeout accepts; longer waits are cut to it (the timer then just fires early). */
const MAX_TIMER = 2 ** 31 - 1;

/**
 * Time as the token manager sees it: the current time and one-shot timers. The system clock in use;
 * tests pass a manual one to cover lifetimes of hours without waiting.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /**
   * Runs `run` after `ms`; returns a function that cancels it. A timer that someone awaits (a token
   * retry's backoff, the floor between token requests) passes `keepAlive: true`: it keeps the process
   * alive as any pending I/O would, so the awaited promise settles. A background timer (expiry of a
   * held token) does not, so an idle client never holds the process open.
   */
  setTimer(ms: number, run: () => void, keepAlive?: boolean): () => void;
}

/** `Date.now` and `setTimeout`, unref'd unless `keepAlive`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, run, keepAlive = false) {
    const handle = setTimeout(run, Math.min(Math.max(ms, 0), MAX_TIMER));
    if (!keepAlive) handle.unref();
    return () => clearTimeout(handle);
  },
};
