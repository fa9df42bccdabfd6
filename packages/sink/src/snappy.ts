// Snappy compression (the raw block format Parquet's SNAPPY codec uses), written for the Parquet writer's
// pages: 64 KiB blocks, a 16K-entry hash table of 4-byte sequences, output into one buffer sized for the
// worst case (no growing, no object per literal or copy).

const HASH_BITS = 14;
const BLOCK = 65536;
const MARGIN = 15;
const table = new Uint16Array(1 << HASH_BITS);

const hash = (x: number): number => Math.imul(x, 0x1e35a7bd) >>> (32 - HASH_BITS);

/** The largest compressed size of `n` bytes. */
export const snappyBound = (n: number): number => 32 + n + Math.floor(n / 6);

/** `input` compressed in the Snappy format (its length as a varint, then literals and copies). */
export function snappyCompress(input: Uint8Array): Uint8Array {
  const out = new Uint8Array(snappyBound(input.length));
  let op = 0;
  let n = input.length;
  while (n > 0x7f) {
    out[op++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  out[op++] = n;
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength);
  for (let start = 0; start < input.length; start += BLOCK) op = block(input, view, start, Math.min(start + BLOCK, input.length), out, op);
  return out.subarray(0, op);
}

/** Compresses `input[start, end)` (at most 64 KiB; `view` over the same bytes) into `out` at `op`; returns the new end of `out`. */
function block(input: Uint8Array, view: DataView, start: number, end: number, out: Uint8Array, op: number): number {
  const load32 = (i: number): number => view.getInt32(i, true);
  let nextEmit = start;
  const limit = end - MARGIN;
  if (end - start >= MARGIN) {
    table.fill(0);
    let ip = start + 1;
    let nextHash = hash(load32(ip));
    outer: for (;;) {
      let skip = 32;
      let nextIp = ip;
      let candidate: number;
      do {
        ip = nextIp;
        const h = nextHash;
        nextIp = ip + (skip++ >>> 5);
        if (nextIp > limit) break outer;
        nextHash = hash(load32(nextIp));
        candidate = start + table[h]!;
        table[h] = ip - start;
      } while (load32(ip) !== load32(candidate));
      op = literal(input, nextEmit, ip, out, op);
      do {
        const base = ip;
        let matched = 4;
        while (ip + matched < end && input[ip + matched] === input[candidate + matched]) matched++;
        ip += matched;
        op = copy(out, op, base - candidate, matched);
        nextEmit = ip;
        if (ip >= limit) break outer;
        table[hash(load32(ip - 1))] = ip - 1 - start;
        const h = hash(load32(ip));
        candidate = start + table[h]!;
        table[h] = ip - start;
      } while (load32(ip) === load32(candidate));
      nextHash = hash(load32(++ip));
    }
  }
  return nextEmit < end ? literal(input, nextEmit, end, out, op) : op;
}

/** A literal of `input[from, to)`: its length (in the tag, or in 1 to 4 bytes after it), then the bytes. */
function literal(input: Uint8Array, from: number, to: number, out: Uint8Array, op: number): number {
  const n = to - from - 1;
  if (n < 60) out[op++] = n << 2;
  else if (n < 0x100) { out[op++] = 60 << 2; out[op++] = n; }
  else if (n < 0x10000) { out[op++] = 61 << 2; out[op++] = n & 0xff; out[op++] = n >>> 8; }
  else if (n < 0x1000000) { out[op++] = 62 << 2; out[op++] = n & 0xff; out[op++] = (n >>> 8) & 0xff; out[op++] = n >>> 16; }
  else { out[op++] = 63 << 2; out[op++] = n & 0xff; out[op++] = (n >>> 8) & 0xff; out[op++] = (n >>> 16) & 0xff; out[op++] = n >>> 24; }
  if (to - from < 16) {
    for (let i = from; i < to; i++) out[op++] = input[i]!;
    return op;
  }
  out.set(input.subarray(from, to), op);
  return op + (to - from);
}

/** Copies of `length` bytes from `offset` back: 64 at a time, the last 4 to 64 (two bytes when short and near). */
function copy(out: Uint8Array, op: number, offset: number, length: number): number {
  while (length >= 68) {
    op = copyUpTo64(out, op, offset, 64);
    length -= 64;
  }
  if (length > 64) {
    op = copyUpTo64(out, op, offset, 60);
    length -= 60;
  }
  return copyUpTo64(out, op, offset, length);
}

function copyUpTo64(out: Uint8Array, op: number, offset: number, length: number): number {
  if (length < 12 && offset < 2048) {
    out[op++] = 1 | ((length - 4) << 2) | ((offset >>> 8) << 5);
    out[op++] = offset & 0xff;
  } else {
    out[op++] = 2 | ((length - 1) << 2);
    out[op++] = offset & 0xff;
    out[op++] = offset >>> 8;
  }
  return op;
}
