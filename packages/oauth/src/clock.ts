/** Longest delay setTimeout accepts; longer waits are cut to it (the timer then just fires early). */
const MAX_TIMER = 2 ** 31 - 1;

/**
 * Time as the token manager sees it: the current time and one-shot timers that never keep the process
 * alive. The system clock in use; tests pass a manual one to cover lifetimes of hours without waiting.
 */
export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Runs `run` after `ms`; returns a function that cancels it. */
  setTimer(ms: number, run: () => void): () => void;
}

/** `Date.now` and unref'd `setTimeout`. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, run) {
    const handle = setTimeout(run, Math.min(Math.max(ms, 0), MAX_TIMER));
    handle.unref();
    return () => clearTimeout(handle);
  },
};
