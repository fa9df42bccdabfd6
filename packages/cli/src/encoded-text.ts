/** Bytes an export gathers before it hands them to the output (whole records only; fewer, larger writes cost less CPU). */
export const FLUSH_BYTES = 256 * 1024;

/** Written buffers kept for reuse; a flush that finds none free allocates another (it never waits for a write). */
const POOL_SIZE = 4;

const NONE = Buffer.alloc(0);

/** Where {@link EncodedText.writeTo} writes: an output that calls `written` once it has taken the bytes. */
export interface TextOutput {
  write(bytes: Uint8Array, written: () => void): Promise<void>;
}

/**
 * The text of an export, encoded as UTF-8 into a buffer outside the JavaScript heap a batch of records at a
 * time, until {@link take} hands the bytes to the output. Kept as one growing string instead, the text of up to
 * a quarter of a MiB was alive at every young-generation collection, which copied it (and later promoted it);
 * only the batch being written is now.
 *
 * A buffer whose write has completed comes back through {@link written} and is filled again; a flush that finds
 * none free allocates one (it never waits for a write: waiting cost more CPU than allocating). Allocated afresh
 * for every flush, a buffer alive at two young-generation collections (filled, then written) was promoted, and its
 * half a MiB outside the heap was freed only by the next full collection: a 1,000,000-record export held about
 * 3 MiB more of such ArrayBuffers at its peak without the reuse (bench/RESULTS.md, cli-export).
 */
export class EncodedText {
  private buf: Buffer = NONE;
  private used = 0;
  /** Buffers of `capacity` bytes whose writes have completed. */
  private readonly free: Buffer[] = [];

  /** @param capacity Bytes of each buffer (a larger one for a batch that needs it). */
  constructor(private readonly capacity = 2 * FLUSH_BYTES) {}

  /** Bytes gathered so far. */
  get bytes(): number {
    return this.used;
  }

  /** Adds `text` (encoded as UTF-8). */
  add(text: string): void {
    // A UTF-16 code unit takes at most 3 bytes in UTF-8 (a surrogate pair, two units, 4).
    const most = text.length * 3;
    if (this.used + most > this.buf.length) {
      const size = Math.max(this.capacity, this.used + most);
      const larger = size === this.capacity && this.free.length > 0 ? this.free.pop()! : Buffer.allocUnsafeSlow(size);
      this.buf.copy(larger, 0, 0, this.used);
      // The buffer given up was never handed out: it may be filled again at once.
      if (this.buf.length === this.capacity && this.free.length < POOL_SIZE) this.free.push(this.buf);
      this.buf = larger;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /**
   * The bytes gathered so far, to be written; the next text goes to another buffer. Pass the bytes to
   * {@link written} once the output has written them (not before: until then it may still read them).
   */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    this.buf = NONE;
    this.used = 0;
    return out;
  }

  /** Gives back bytes that {@link take} handed out and the output has finished writing: their buffer is reused. */
  written(taken: Buffer): void {
    const whole = taken.buffer;
    // Only a buffer of this text's own size that it allocated (allocUnsafeSlow: an ArrayBuffer of its own).
    if (taken.byteOffset !== 0 || whole.byteLength !== this.capacity || this.free.length >= POOL_SIZE) return;
    this.free.push(Buffer.from(whole, 0, whole.byteLength));
  }

  /** Writes the bytes gathered so far to `output` ({@link take}); their buffer is reused once the output has them. */
  writeTo(output: TextOutput): Promise<void> {
    const bytes = this.take();
    return output.write(bytes, () => this.written(bytes));
  }
}
