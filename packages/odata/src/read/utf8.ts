import { isAscii, transcode } from 'node:buffer';

/** Below this many bytes the plain decoder is cheaper than the checks of the fast paths. */
const FAST_PATH_BYTES = 512;
/**
 * Whether ICU converts non-ASCII UTF-8 faster than V8: on Node 20 and 22 (V8 decodes byte by byte) ICU
 * takes about a third of V8's time on the bench's records; Node 24's V8 decodes with SIMD and wins.
 */
const ICU_FASTER = Number(process.versions.node.split('.')[0]) < 24;

/**
 * The text of `buf[from, to)` decoded as UTF-8, exactly as `buf.toString('utf8', from, to)` gives it but
 * cheaper for the large runs of records the stream reader parses: ASCII bytes (most of a page) are copied
 * as Latin-1 (one byte per character, no decoding), and other text is converted by ICU to UTF-16 where
 * that is faster than V8's UTF-8 decoder (Node 20 and 22). ICU refuses malformed UTF-8 (it throws); such bytes
 * go through the plain decoder, so they still turn into U+FFFD as before.
 */
export function utf8Text(buf: Buffer, from: number, to: number): string {
  if (to - from < FAST_PATH_BYTES) return buf.toString('utf8', from, to);
  const part = buf.subarray(from, to);
  if (isAscii(part)) return buf.toString('latin1', from, to);
  if (!ICU_FASTER) return buf.toString('utf8', from, to);
  try {
    return transcode(part, 'utf8', 'ucs2').toString('ucs2');
  } catch {
    return buf.toString('utf8', from, to);
  }
}

const OPEN = 0x5b;
const CLOSE = 0x5d;
/** Reused for the bracketed copies of runs up to this size; larger runs get a buffer of their own. */
const SCRATCH_MAX = 1024 * 1024;
let scratch = Buffer.allocUnsafe(0);

/**
 * `[` + the UTF-8 text of `buf[from, to)` + `]` (a run of records as a JSON array) as one flat string, as
 * `` `[${utf8Text(buf, from, to)}]` `` gives it. That template makes a rope that `JSON.parse` first copies
 * into a flat string (a second string as large as the run, in the young generation); here the brackets
 * go around the bytes instead, in a reused buffer, and the text is decoded once.
 */
export function utf8ArrayText(buf: Buffer, from: number, to: number): string {
  const length = to - from;
  if (length < FAST_PATH_BYTES) return `[${buf.toString('utf8', from, to)}]`;
  let out = scratch;
  if (out.length < length + 2) {
    out = Buffer.allocUnsafe(length + 2);
    if (length + 2 <= SCRATCH_MAX) scratch = out;
  }
  out[0] = OPEN;
  buf.copy(out, 1, from, to);
  out[length + 1] = CLOSE;
  return utf8Text(out, 0, length + 2);
}
