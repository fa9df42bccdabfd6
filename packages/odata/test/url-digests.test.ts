import { describe, expect, it } from 'vitest';
import { UrlDigests } from '../src/read/url-digests.js';

const urls = (n: number, pad: number) => Array.from({ length: n }, (_, i) => `https://example.com/svc/P?$skiptoken=${'x'.repeat(pad)}${i}`);

describe('UrlDigests (the next links a read has followed)', () => {
  it('holds the same bytes for short and for long URLs: a fixed size a page, at most 64 bytes, not the URL', () => {
    const N = 20_000;
    const short = new UrlDigests();
    const long = new UrlDigests();
    for (const u of urls(N, 0)) short.add(u);
    for (const u of urls(N, 2_000)) long.add(u);
    expect(short.size).toBe(N);
    expect(long.size).toBe(N);
    // 20,000 URLs of 2 kB are 40 MB of text; the table is the same 1 MiB either way.
    expect(long.bytes).toBe(short.bytes);
    expect(long.bytes).toBeLessThanOrEqual(64 * N);
    expect(long.bytes).toBeGreaterThanOrEqual(32 * N);
  });

  it('finds every URL added and no other, through every growth of its table', () => {
    const seen = new UrlDigests();
    const all = urls(50_000, 10);
    // What went wrong, asserted once: an expect() per step (100,000 of them) took longer than the hashing.
    const wrong: string[] = [];
    for (const [i, u] of all.entries()) {
      if (seen.has(u)) wrong.push(`${u} found before it was added`);
      if (!seen.add(u)) wrong.push(`${u} not added`);
      // Each earlier URL stays found as the table grows (checked at a few points, not every step).
      if ((i & (i + 1)) === 0 && !all.slice(0, i + 1).every((v) => seen.has(v))) wrong.push(`a URL lost at ${i + 1} held`);
    }
    expect(wrong).toEqual([]);
    expect(all.every((u) => seen.has(u) && !seen.add(u))).toBe(true);
    expect(seen.size).toBe(all.length);
    // URLs that differ from one held by one character, or only in case, are not taken for it.
    expect(urls(50_000, 10).some((u) => seen.has(`${u}&`) || seen.has(u.toUpperCase()) || seen.has(u.slice(0, -1) + '#'))).toBe(false);
  });
});
