import { hash } from 'node:crypto';

/** Words (32 bits each) kept per URL. */
const WORDS = 4;
const FIRST_SLOTS = 64;

/**
 * The URLs a paged read has requested, kept as 127-bit digests (SHA-256, truncated; the lowest bit of the
 * last word is set so that a zero slot means empty) in one flat open-addressing table: 16 bytes a slot, at
 * most half the slots full, so 32 to 64 bytes a page whatever the URLs' length, and no object per page for
 * the garbage collector to trace.
 *
 * Two different URLs read as the same (a loop reported that is not one) only if their digests collide:
 * for n pages the chance is at most n(n-1)/2 / 2^127, about 3e-25 for ten million pages and 3e-21 for
 * a billion. A URL requested again always has the same digest, so a real repeat is never missed.
 */
export class UrlDigests {
  private table = new Uint32Array(FIRST_SLOTS * WORDS);
  private count = 0;

  /** Whether `url` was added before. */
  has(url: string): boolean {
    const d = digest(url);
    return this.table[this.slotOf(d) * WORDS + 3] !== 0;
  }

  /** Adds `url`; false if it was there already. */
  add(url: string): boolean {
    const d = digest(url);
    const at = this.slotOf(d) * WORDS;
    if (this.table[at + 3] !== 0) return false;
    this.table.set(d, at);
    if (++this.count * 2 > this.table.length / WORDS) this.grow();
    return true;
  }

  /** How many URLs are held. */
  get size(): number {
    return this.count;
  }

  /** The bytes the table takes. */
  get bytes(): number {
    return this.table.byteLength;
  }

  /** The slot holding digest `d`, or the empty slot where it would go (linear probing). */
  private slotOf(d: Uint32Array): number {
    const table = this.table;
    const mask = table.length / WORDS - 1;
    for (let slot = d[0]! & mask; ; slot = (slot + 1) & mask) {
      const at = slot * WORDS;
      if (table[at + 3] === 0) return slot;
      if (table[at] === d[0] && table[at + 1] === d[1] && table[at + 2] === d[2] && table[at + 3] === d[3]) return slot;
    }
  }

  private grow(): void {
    const old = this.table;
    this.table = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += WORDS) {
      if (old[at + 3] === 0) continue;
      const d = old.subarray(at, at + WORDS);
      this.table.set(d, this.slotOf(d) * WORDS);
    }
  }
}

/**
 * The digest words of `url`. The one-shot `crypto.hash` (Node 20.12+) rather than `createHash()...digest()`:
 * the same SHA-256 without a Hash stream object per page, whose constructor, update and digest V8 otherwise
 * compiled with its optimising compiler during every long read.
 */
function digest(url: string): Uint32Array {
  const sha = hash('sha256', url, 'buffer');
  return Uint32Array.of(sha.readUInt32LE(0), sha.readUInt32LE(4), sha.readUInt32LE(8), (sha.readUInt32LE(12) | 1) >>> 0);
}
