import { ResponseSizeError } from '../errors.js';
import { mayHoldControl } from './control.js';
import { MISSED, parseRun, SPECULATE_BYTES, SPECULATE_MISSES } from './speculate.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Elements completed by one {@link ItemScanner.push}: byte ranges in `buf` (valid until the next push),
 * and runs already parsed while scanning, each placed after the first `after` ranges.
 */
export interface ScanBatch {
  buf: Buffer;
  starts: number[];
  ends: number[];
  parsed: ParsedRun[];
}

/** A run of records parsed while scanning, placed after the first `after` ranges of its batch. */
export interface ParsedRun {
  after: number;
  values: unknown[];
  /** Whether the run's bytes hold control information that may have to be removed ({@link mayHoldControl}). */
  control: boolean;
}

/** `elemStart` of an element that began in an earlier chunk (its bytes are in `pending`). */
const PENDING = -2;

/**
 * Finds the elements of a response's record array (`value` in v4, `d.results` in v2) in body bytes as
 * they arrive, without parsing them: it tracks strings, escapes and nesting depth only, so each element
 * can be handed to `JSON.parse` as soon as its last byte is in, alone or in a run with its neighbours.
 * Everything outside the array (next link, count, context) is kept as the small "envelope" and parsed
 * at the end with the array emptied. Gives identical results however the bytes are chunked.
 *
 * @example
 * ```ts
 * const scanner = new ItemScanner([['value']])
 * for await (const chunk of body) { const batch = scanner.push(chunk); ... }
 * const envelope = scanner.end() // { '@odata.nextLink': ..., value: [] }
 * ```
 */
export class ItemScanner {
  /** Position in `buf` where scanning resumes. */
  private pos = 0;
  private depth = 0;
  private inString = false;
  /** An escape's backslash was the last byte of a chunk: skip the next byte. */
  private skipNext = false;
  private inItems = false;
  private arrayDepth = -1;
  private elemStart = -1;
  /** The open element is a bare primitive (number, true, false, null) rather than a container or string. */
  private primitive = false;
  private found = false;
  /** Envelope text so far, as latin1 (one char per byte); re-decoded as UTF-8 at the end. */
  private envelope = '';
  /** Where, in `buf`, the envelope bytes not yet copied start (-1 while inside the array). */
  private envFrom = 0;
  /** Envelope index of the opening quote of the envelope string being read. */
  private envStringStart = -1;
  private lastString = '';
  private readonly keys: string[] = [];
  /** Total elements completed so far. */
  count = 0;
  private misses = 0;
  /** Runs parsed by the push in progress; handed out with its batch and not kept (see {@link takeParsed}). */
  private parsed: ParsedRun[] = [];

  /** Set when a record passed `maxRecordBytes`: the batch that found it holds the records before it; stop reading. */
  failure: ResponseSizeError | undefined;
  /** Bytes of the element still open at the end of the last chunk (it began in an earlier one). */
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /**
   * @param paths Key paths from the root to the record array, tried in order (`[['d', 'results'], ['d']]`).
   * @param maxRecordBytes Largest record accepted; a larger one throws ResponseSizeError.
   * @param speculate Whether runs of records may be parsed while scanning (false: the caller parses every range).
   */
  constructor(private readonly paths: readonly (readonly string[])[], private readonly maxRecordBytes?: number, speculate = true) {
    // Speculative runs are up to 64 KiB: with a smaller record limit, every record is measured alone.
    if (!speculate || (maxRecordBytes !== undefined && maxRecordBytes < SPECULATE_BYTES)) this.misses = SPECULATE_MISSES;
  }

  /** Whether the record array was found. */
  get foundArray(): boolean {
    return this.found;
  }

  /** Scans one chunk; returns the elements it completed (possibly none). */
  push(chunk: Uint8Array): ScanBatch {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Only the new bytes are scanned; an element begun in earlier chunks is marked PENDING and its
    // bytes stay in `pending` until it completes (joined once then), so no byte is copied twice.
    this.pos = 0;
    if (this.envFrom >= 0) this.envFrom = 0;
    const starts: number[] = [];
    const ends: number[] = [];
    const n = buf.length;
    let i = this.pos;
    if (this.skipNext && i < n) { i++; this.skipNext = false; }
    if (this.inString) {
      i = this.skipString(buf, i, n);
      if (i < 0) return this.suspend(buf, n, starts, ends);
      this.inString = false;
      if (!this.inItems) this.stringEnded(buf, i);
      else if (this.depth === this.arrayDepth) this.elementEnd(starts, ends, i + 1);
      i++;
    }
    let depth = this.depth;
    for (; i < n; i++) {
      if (this.inItems) {
        this.depth = depth;
        const close = this.scanItems(buf, i, n, starts, ends);
        if (close < 0) return this.suspend(buf, n, starts, ends);
        // The record array closed at `close`: the envelope goes on from its bracket.
        depth = this.depth;
        this.envFrom = close;
        i = close;
        continue;
      }
      const c = buf[i]!;
      // Envelope: track object keys to recognise the record array's path.
      if (c === QUOTE) {
        this.envStringStart = this.envelope.length + (i - this.envFrom);
        const close = this.skipString(buf, i + 1, n);
        if (close < 0) { this.inString = true; this.depth = depth; return this.suspend(buf, n, starts, ends); }
        i = close;
        this.stringEnded(buf, i);
      } else if (c === OPEN_OBJECT) {
        depth++;
        this.keys[depth] = '';
      } else if (c === OPEN_ARRAY) {
        depth++;
        this.keys[depth] = '';
        if (!this.found && this.matches(depth - 1)) {
          this.found = true;
          this.inItems = true;
          this.arrayDepth = depth;
          this.envelope += buf.toString('latin1', this.envFrom, i + 1);
          this.envFrom = -1;
        }
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
      } else if (c === COLON) {
        this.keys[depth] = this.lastString;
      }
    }
    this.depth = depth;
    return this.suspend(buf, n, starts, ends);
  }

  /**
   * The hot loop: finds element boundaries inside the record array, state in locals. Returns the index
   * of the array's closing bracket, or -1 when the chunk ran out (state saved for the next chunk).
   */
  private scanItems(buf: Buffer, i: number, n: number, starts: number[], ends: number[]): number {
    const top = this.arrayDepth;
    let depth = this.depth;
    let elemStart = this.elemStart;
    let primitive = this.primitive;
    let count = this.count;
    while (i < n) {
      const c = buf[i]!;
      if (depth === top) {
        if (c === OPEN_OBJECT && this.misses < SPECULATE_MISSES) {
          this.count = count;
          const cut = this.speculate(buf, i, n, starts.length);
          count = this.count;
          if (cut > 0) {
            i = cut;
            continue;
          }
        }
        if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          elemStart = i;
          depth++;
          i++;
          continue;
        }
        if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
          if (primitive) { starts.push(elemStart); ends.push(i); count++; primitive = false; elemStart = -1; }
          this.depth = depth - 1;
          this.elemStart = -1;
          this.primitive = false;
          this.count = count;
          this.inItems = false;
          return i;
        }
        if (c === QUOTE) {
          elemStart = i;
        } else {
          if (c === COMMA || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) {
            if (primitive) { starts.push(elemStart); ends.push(i); count++; primitive = false; elemStart = -1; }
          } else if (elemStart === -1) {
            elemStart = i;
            primitive = true;
          }
          i++;
          continue;
        }
      }
      if (c === QUOTE) {
        let j = i + 1;
        for (;;) {
          if (j >= n) {
            // The string goes on in the next chunk; j === n + 1 means the chunk ended on an escape's backslash.
            this.inString = true;
            this.skipNext = j > n;
            this.depth = depth;
            this.elemStart = elemStart;
            this.primitive = primitive;
            this.count = count;
            return -1;
          }
          const e = buf[j]!;
          if (e === QUOTE) break;
          j += e === BACKSLASH ? 2 : 1;
        }
        i = j + 1;
        if (depth === top) { starts.push(elemStart); ends.push(i); count++; elemStart = -1; }
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
      else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        if (depth === top) { starts.push(elemStart); ends.push(i + 1); count++; elemStart = -1; }
      }
      i++;
    }
    this.depth = depth;
    this.elemStart = elemStart;
    this.primitive = primitive;
    this.count = count;
    return -1;
  }

  /** At a record boundary, parses a run of records at once ({@link parseRun}); returns the index after it, or -1. */
  private speculate(buf: Buffer, i: number, n: number, after: number): number {
    const run = parseRun(buf, i, n);
    if (run === undefined) return -1;
    if (run === MISSED) {
      this.misses++;
      return -1;
    }
    this.parsed.push({ after, values: run.values, control: mayHoldControl(buf, i, run.end) });
    this.count += run.values.length;
    return run.end;
  }

  /**
   * Call after the last chunk: returns the envelope (the document with the record array emptied), or
   * throws a `SyntaxError` if the body ended early or was not JSON.
   */
  end(): Record<string, unknown> {
    if (this.inString || this.depth !== 0 || this.inItems) throw new SyntaxError('The response body ended before the JSON document was complete');
    const text = Buffer.from(this.envelope, 'latin1').toString('utf8');
    const doc = JSON.parse(text) as unknown;
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new SyntaxError('The response body is not a JSON object');
    return doc as Record<string, unknown>;
  }

  private suspend(buf: Buffer, n: number, starts: number[], ends: number[]): ScanBatch {
    this.pos = n;
    // Envelope bytes are copied out now so the chunk is not kept. It used to stay referenced (for `end`, which
    // found nothing left in it) until the next push or, for a page's last chunk, as long as the page's scanner
    // lived: often long enough for young-generation collections to promote those chunks, whose bytes outside the
    // heap were then freed only by a full collection. A 1,000,000-record export's peak RSS grew by 20-25 MiB with them.
    if (this.envFrom >= 0) {
      this.envelope += buf.toString('latin1', this.envFrom, n);
      this.envFrom = n;
    }
    let out = buf;
    if (starts.length > 0 && starts[0] === PENDING) {
      // The element begun in earlier chunks ended here: join its bytes once, shifting this chunk's ranges.
      // Alone in this batch (the rest of the chunk was parsed speculatively, the usual case), only its own
      // bytes are joined, not the whole chunk.
      const shift = this.pendingBytes;
      const upTo = starts.length === 1 ? ends[0]! : n;
      out = Buffer.concat([...this.pending, upTo === n ? buf : buf.subarray(0, upTo)], shift + upTo);
      starts[0] = 0;
      ends[0]! += shift;
      for (let k = 1; k < starts.length; k++) { starts[k]! += shift; ends[k]! += shift; }
      this.pending = [];
      this.pendingBytes = 0;
    }
    const max = this.maxRecordBytes;
    if (max !== undefined) {
      // Records before an oversized one are still handed out; `failure` then ends the read.
      for (let k = 0; k < starts.length; k++) {
        if (ends[k]! - starts[k]! > max) {
          this.failure = new ResponseSizeError('maxRecordBytes', max);
          starts.length = k;
          ends.length = k;
          return { buf: out, starts, ends, parsed: this.takeParsed() };
        }
      }
    }
    if (this.elemStart === PENDING) {
      this.pending.push(buf);
      this.pendingBytes += n;
    } else if (this.elemStart >= 0) {
      this.pending = [buf.subarray(this.elemStart)];
      this.pendingBytes = n - this.elemStart;
      this.elemStart = PENDING;
    }
    if (max !== undefined && this.pendingBytes > max) this.failure = new ResponseSizeError('maxRecordBytes', max);
    return { buf: out, starts, ends, parsed: this.takeParsed() };
  }

  /**
   * The runs parsed by this push, which the scanner lets go of: a scanner lives as long as its page is read, and
   * records it still pointed to after the caller was done with them were found alive by the young-generation
   * collections in that time and promoted to the old generation (bench/RESULTS.md, cli-export).
   */
  private takeParsed(): ParsedRun[] {
    const parsed = this.parsed;
    this.parsed = [];
    return parsed;
  }

  /** Returns the index of the closing quote at or after `i`, or -1 if the chunk ends first. */
  private skipString(buf: Buffer, i: number, n: number): number {
    // Short strings (most JSON values) are fastest byte by byte; long ones use indexOf below.
    const limit = Math.min(n, i + 64);
    let j = i;
    while (j < limit) {
      const c = buf[j]!;
      if (c === QUOTE) return j;
      j += c === BACKSLASH ? 2 : 1;
    }
    if (j >= n) {
      // j === n + 1: the chunk ended on an escape's backslash, so the next byte is escaped.
      if (j > n) this.skipNext = true;
      return -1;
    }
    for (;;) {
      const q = buf.indexOf(QUOTE, j);
      const stop = q < 0 ? n : q;
      // A quote preceded by an odd run of backslashes is escaped (RFC 8259 section 7).
      let k = stop;
      while (k > j && buf[k - 1] === BACKSLASH) k--;
      const escaped = (stop - k) % 2 === 1;
      if (q < 0) {
        if (escaped) this.skipNext = true;
        return -1;
      }
      if (!escaped) return q;
      j = q + 1;
    }
  }

  private stringEnded(buf: Buffer, close: number): void {
    this.envelope += buf.toString('latin1', this.envFrom, close + 1);
    this.envFrom = close + 1;
    this.lastString = this.envelope.slice(this.envStringStart + 1, this.envelope.length - 1);
  }

  private elementEnd(starts: number[], ends: number[], end: number): void {
    starts.push(this.elemStart);
    ends.push(end);
    this.elemStart = -1;
    this.primitive = false;
    this.count++;
  }

  private matches(parentDepth: number): boolean {
    for (const path of this.paths) {
      if (path.length !== parentDepth) continue;
      let ok = true;
      for (let d = 0; d < path.length && ok; d++) ok = this.keys[d + 1] === path[d];
      if (ok) return true;
    }
    return false;
  }
}
