// The text of rows for PostgreSQL's `COPY ... FROM STDIN` (text format), encoded from the values `sqlValue`
// made for the column (NULL as `\N`; text escaped); pg-run.ts sends it.
import type { Writable } from 'node:stream';
import type { Column } from '../columns.js';
import { numberText } from '../values.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;

/** Text as COPY's text format reads it: backslash, newline, carriage return and tab escaped. */
function escaped(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text;
}

/** The COPY text of one value of a column (not null), from what `sqlValue` made of it. */
function encoderOf(column: Column): (value: unknown) => string {
  switch (column.kind) {
    case 'boolean': return (v) => (v ? 't' : 'f');
    // Numbers, numeric text, instants, dates, times and GUIDs hold no character COPY would read otherwise.
    case 'int': case 'int64': case 'decimal': case 'double': case 'single': case 'date': case 'timestamp': case 'time': case 'guid':
      return (v) => (typeof v === 'number' ? numberText(v) : String(v));
    // bytea's hex form, its backslash escaped for COPY.
    case 'binary': return (v) => `\\\\x${Buffer.from(v as Uint8Array).toString('hex')}`;
    case 'json': case 'duration': case 'string': return (v) => escaped(String(v));
  }
}

/**
 * Characters of COPY text gathered before they are encoded into the bytes: well below V8's large-object size, and
 * small, as the text gathered (a tree of concatenated strings) lives through the scavenges that meet it (16 K
 * characters: 36-40 MiB survived per 1M records into PostgreSQL; 4 K: 28-32; bench/RESULTS.md).
 */
const PIECE = 4_096;
/** Bytes kept for the next COPY (a page's); more is let go after the COPY. */
const KEEP_BYTES = 1 << 24;

/**
 * Encodes rows (values in column order) as the bytes of COPY text, into memory it reuses from one COPY to the
 * next: a page's text is never one string (a page of 1,000 records is some 200 KiB, which V8 puts straight into the
 * large-object space) and its bytes are not allocated afresh for each page.
 */
export class CopyEncoder {
  private readonly encode: ((value: unknown) => string)[];
  private bytes = Buffer.allocUnsafe(1 << 16);
  /** COPY text of rows not yet written into {@link bytes} (less than a piece). */
  private text = '';
  constructor(columns: readonly Column[]) {
    this.encode = columns.map(encoderOf);
  }

  /** The COPY text of `rows` as UTF-8, in the encoder's memory: valid until the next call, or until {@link done}. */
  encodeRows(rows: readonly unknown[][]): Buffer {
    return this.slice(0, this.append(rows, 0));
  }

  /**
   * Writes the COPY text of `rows` after the first `at` bytes of the encoder's memory (a run's text so far, left
   * as it is); returns the end. Bytes handed out before stay valid: memory that grows is new memory.
   */
  append(rows: readonly unknown[][], at: number): number {
    for (const row of rows) at = this.row(row, at);
    return this.flush(at);
  }

  /**
   * Adds the COPY text of one row (encoded at once: the array may be reused for the next row) to the text
   * gathered after byte `at`; returns where the bytes written so far end. {@link flush} writes the rest.
   */
  row(row: readonly unknown[], at: number): number {
    const encode = this.encode;
    let text = this.text;
    for (let i = 0; i < encode.length; i++) {
      const v = row[i];
      if (i > 0) text += '\t';
      text += v === null || v === undefined ? '\\N' : encode[i]!(v);
    }
    text += '\n';
    if (text.length < PIECE) {
      this.text = text;
      return at;
    }
    this.text = '';
    return this.put(text, at);
  }

  /** Writes the text {@link row} gathered after byte `at`; returns the end. */
  flush(at: number): number {
    const text = this.text;
    this.text = '';
    return text === '' ? at : this.put(text, at);
  }

  /** Bytes `from` to `to` of the encoder's memory (no copy). */
  slice(from: number, to: number): Buffer {
    return this.bytes.subarray(from, to);
  }

  /** Writes `text` at `at`, growing the memory as needed; returns the end. */
  private put(text: string, at: number): number {
    const most = at + 3 * text.length;
    if (most > this.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(2 * this.bytes.length, most));
      this.bytes.copy(grown, 0, 0, at);
      this.bytes = grown;
    }
    return at + this.bytes.write(text, at, 'utf8');
  }

  /**
   * After a COPY that failed: the connection may still hold its bytes unsent, so the next COPY gets new memory.
   * After one that succeeded (the server read every byte) the memory is reused, unless a big page grew it past 16 MiB.
   */
  done(ok: boolean): void {
    this.text = '';
    if (!ok || this.bytes.length > KEEP_BYTES) this.bytes = Buffer.allocUnsafe(1 << 16);
  }
}

/** A pg client's `query` that takes a submittable (the COPY stream) and returns it. */
export type SubmitQuery = (submittable: Writable) => Writable;
