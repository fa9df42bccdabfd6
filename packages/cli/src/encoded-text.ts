/** Bytes an export gathers before it hands them to the output (whole records only; fewer, larger writes cost less CPU). */
export const FLUSH_BYTES = 256 * 1024;

const NONE = Buffer.alloc(0);

/**
 * The text of an export, encoded as UTF-8 into a buffer outside the JavaScript heap a batch of records at a
 * time, until {@link take} hands the bytes to the output. Kept as one growing string instead, the text of up to
 * a quarter of a MiB was alive at every young-generation collection, which copied it (and later promoted it);
 * only the batch being written is now.
 */
export class EncodedText {
  private buf = NONE;
  private used = 0;

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
      const larger = Buffer.allocUnsafe(Math.max(this.capacity, this.used + most));
      this.buf.copy(larger, 0, 0, this.used);
      this.buf = larger;
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /** The bytes gathered so far, to be written; the next text goes to a new buffer (the output may still hold this one). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.used);
    this.buf = NONE;
    this.used = 0;
    return out;
  }
}
