// The speculative part of the item scanner: a run of records parsed with one JSON.parse at a guessed cut.
import { utf8ArrayText } from './utf8.js';

const OPEN_OBJECT = 0x7b;

/** Bytes handed to one speculative JSON.parse: bounds the delay before the first record of a big chunk. */
export const SPECULATE_BYTES = 64 * 1024;
/** After this many failed guesses in a page (nested arrays, odd layout), scan byte by byte only. */
export const SPECULATE_MISSES = 3;
const RECORD_END = Buffer.from('},');

/**
 * The last `},` at or before `from` (and after `start`) that can end a record: one followed, after
 * whitespace, by `{` or by the end of the chunk. A `},` followed by anything else closes an object nested
 * in a record (v2's `__metadata` and `__deferred` in every record), so guessing it would only make
 * JSON.parse fail over the whole run. Returns -1 when there is none.
 */
function lastRecordEnd(buf: Buffer, start: number, from: number): number {
  const n = buf.length;
  let at = buf.lastIndexOf(RECORD_END, from);
  while (at > start) {
    let k = at + 2;
    while (k < n && (buf[k] === 0x20 || buf[k] === 0x0a || buf[k] === 0x0d || buf[k] === 0x09)) k++;
    if (k >= n || buf[k] === OPEN_OBJECT) return at;
    at = buf.lastIndexOf(RECORD_END, at - 1);
  }
  return -1;
}

/** What {@link parseRun} answers when it found a cut but no guess parsed (the scanner counts these). */
export const MISSED = 'missed';

/**
 * At a record boundary `i`, guesses that the last `},` within the next 64 KiB ends a record and parses
 * everything up to it with one JSON.parse. A wrong guess cannot slip through: `[` + text + `]` only
 * parses if the text is a sequence of complete values, so the cut is a record boundary; on failure
 * (a nested `},`, or a bad record) the caller scans the bytes one by one instead. Returns the records and
 * the index after the cut, {@link MISSED} when guesses failed, or undefined when there was nothing to guess.
 */
export function parseRun(buf: Buffer, i: number, n: number): { values: unknown[]; end: number } | typeof MISSED | undefined {
  const limit = Math.min(n, i + SPECULATE_BYTES);
  let at = lastRecordEnd(buf, i, limit - RECORD_END.length);
  for (let tries = 0; tries < 2 && at > i; tries++) {
    let values: unknown[];
    try {
      values = JSON.parse(utf8ArrayText(buf, i, at + 1)) as unknown[];
    } catch {
      at = lastRecordEnd(buf, i, at - 1);
      continue;
    }
    return { values, end: at + 1 };
  }
  return at > i ? MISSED : undefined;
}
