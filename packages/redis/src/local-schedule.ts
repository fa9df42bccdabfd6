/**
 * GCRA with reservation in this process: the same arithmetic as the shared Lua script, used as the
 * fallback budget while Redis is down. Times are `performance.now()` milliseconds.
 */
export class LocalSchedule {
  /** Theoretical arrival time: the slot after the last reserved one, minus one interval. */
  private tat = Number.NEGATIVE_INFINITY;

  constructor(private readonly interval: number, private readonly burst: number) {}

  /** Reserves the next slot: ms to wait for it, or `undefined` (nothing reserved) when that exceeds `limit`. */
  reserve(now: number, limit: number): number | undefined {
    const slot = Math.max(this.tat, now) + this.interval;
    const wait = slot - now - this.interval * this.burst;
    if (wait > limit) return undefined;
    this.tat = slot;
    return Math.max(0, wait);
  }

  /** No slot before `at`, and no burst at it: taking over from the shared budget, whose slots run until then. */
  notBefore(at: number): void {
    this.tat = Math.max(this.tat, at + (this.burst - 1) * this.interval);
  }
}
