/**
 * Two counters (say requests and failures) summed over the last `window` ms, kept in `buckets` time
 * slices so that old events fall out without storing each one. Memory is fixed; every call is O(1)
 * amortised.
 *
 * @example
 * ```ts
 * const counter = new SlidingCounter(10_000)
 * counter.add(1, 0)            // one request, no failure
 * counter.sums()               // [1, 0] for the next 10 s
 * ```
 */
export class SlidingCounter {
  private readonly span: number;
  private readonly first: Float64Array;
  private readonly second: Float64Array;
  private head = 0;
  private headStart: number;
  private sumFirst = 0;
  private sumSecond = 0;

  constructor(window: number, private readonly buckets = 10, private readonly now: () => number = () => performance.now()) {
    this.span = window / buckets;
    this.first = new Float64Array(buckets);
    this.second = new Float64Array(buckets);
    this.headStart = now();
  }

  /** Adds to both counters at the current time. */
  add(first: number, second: number): void {
    this.advance();
    this.first[this.head]! += first;
    this.second[this.head]! += second;
    this.sumFirst += first;
    this.sumSecond += second;
  }

  /** The two sums over the window. */
  sums(): [number, number] {
    this.advance();
    return [this.sumFirst, this.sumSecond];
  }

  /** Forgets everything. */
  reset(): void {
    this.first.fill(0);
    this.second.fill(0);
    this.sumFirst = 0;
    this.sumSecond = 0;
    this.headStart = this.now();
  }

  private advance(): void {
    const now = this.now();
    let steps = Math.floor((now - this.headStart) / this.span);
    if (steps <= 0) return;
    if (steps >= this.buckets) {
      this.reset();
      return;
    }
    while (steps-- > 0) {
      this.head = (this.head + 1) % this.buckets;
      this.sumFirst -= this.first[this.head]!;
      this.sumSecond -= this.second[this.head]!;
      this.first[this.head] = 0;
      this.second[this.head] = 0;
      this.headStart += this.span;
    }
  }
}
