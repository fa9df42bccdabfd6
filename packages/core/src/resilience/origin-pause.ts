import { WaitQueue } from './wait-queue.js';

interface Pause {
  until: number;
  queue: WaitQueue;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Per-origin pauses set by `429`/`503` responses with `Retry-After` (RFC 9110 section 10.2.3 and RFC 6585
 * section 4): until the pause ends, every new attempt to that origin waits, whoever sends it. A pause
 * is a deadline, not a timer; a timer runs only while someone waits, so an idle client holds none.
 *
 * @example
 * ```ts
 * pauses.pause('https://api.example.com', 2000)
 * const wait = pauses.wait('https://api.example.com', signal)   // a promise: paused for 2 s
 * if (wait) await wait
 * ```
 */
export class OriginPauses {
  private readonly pauses = new Map<string, Pause>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Whether any origin has a pause on record (cheap check for the hot path). */
  get active(): boolean {
    return this.pauses.size > 0;
  }

  /** Pauses `origin` for `ms` from now, unless it is already paused for longer. */
  pause(origin: string, ms: number): void {
    const until = this.now() + ms;
    const current = this.pauses.get(origin);
    if (current === undefined) {
      const entry: Pause = { until, queue: new WaitQueue(() => this.stopTimer(entry)), timer: undefined };
      this.pauses.set(origin, entry);
      return;
    }
    if (until <= current.until) return;
    current.until = until;
    if (current.timer !== undefined) {
      this.stopTimer(current);
      this.startTimer(origin, current);
    }
  }

  /** How long `origin` stays paused, in ms (0 when it is not). */
  remaining(origin: string): number {
    const entry = this.pauses.get(origin);
    return entry === undefined ? 0 : Math.max(0, entry.until - this.now());
  }

  /** `undefined` when `origin` is not paused, else a promise that resolves when the pause ends. */
  wait(origin: string, signal: AbortSignal | undefined): Promise<void> | undefined {
    const entry = this.pauses.get(origin);
    if (entry === undefined) return undefined;
    if (entry.until <= this.now()) {
      this.pauses.delete(origin);
      return undefined;
    }
    const turn = entry.queue.wait(signal);
    if (entry.timer === undefined && entry.queue.size > 0) this.startTimer(origin, entry);
    return turn;
  }

  /** Rejects every waiter with `reason`, stops the timers and forgets the pauses. */
  close(reason: unknown): void {
    for (const entry of this.pauses.values()) {
      this.stopTimer(entry);
      entry.queue.rejectAll(reason);
    }
    this.pauses.clear();
  }

  private startTimer(origin: string, entry: Pause): void {
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      // setTimeout may fire a little early against performance.now(): wait out the rest.
      if (entry.until > this.now()) return this.startTimer(origin, entry);
      this.pauses.delete(origin);
      entry.queue.grantAll();
    }, Math.max(0, Math.ceil(entry.until - this.now())));
  }

  private stopTimer(entry: Pause): void {
    if (entry.timer === undefined) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
  }
}
