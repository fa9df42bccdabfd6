import type { Clock } from '../src/clock.js';

/** A clock that moves only when told to, firing due timers in order; for lifetimes of hours in milliseconds. */
export class ManualClock implements Clock {
  private time = Date.UTC(2026, 0, 1);
  private timers: { at: number; seq: number; run: () => void }[] = [];
  private seq = 0;

  now(): number {
    return this.time;
  }

  setTimer(ms: number, run: () => void): () => void {
    const timer = { at: this.time + Math.max(ms, 0), seq: this.seq++, run };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time to the next timer and runs it (and any due with it); nothing when no timer is set. */
  async advanceToNextTimer(): Promise<void> {
    const next = Math.min(...this.timers.map((t) => t.at));
    if (Number.isFinite(next)) await this.advance(Math.max(next - this.time, 0));
  }

  /** Moves time forward by `ms`, running each timer due on the way at its own time. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (due === undefined) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.run();
      // Let what the timer started (a waiting acquisition) take its next step.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.time = end;
  }
}
