import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8ArrayText, utf8Text } from '../src/read/utf8.js';
import { client, collect, serve } from './helpers.js';

/** Padding that takes a text past the size where the fast paths start. */
const PAD = 'p'.repeat(600);

describe('utf8Text (the stream reader\'s decoder)', () => {
  it('decodes every Unicode text exactly as Buffer#toString, at any offsets (property)', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), fc.nat(), fc.nat(), (text, a, b) => {
      const buf = Buffer.from(`${PAD}${text}${PAD}`);
      // Offsets on character boundaries: the reader only cuts between JSON values.
      const from = Buffer.byteLength(PAD.slice(0, a % PAD.length));
      const to = buf.length - Buffer.byteLength(PAD.slice(0, b % PAD.length));
      expect(utf8Text(buf, from, to)).toBe(buf.toString('utf8', from, to));
    }), { numRuns: 300 });
  });

  it('turns malformed UTF-8 into U+FFFD exactly as Buffer#toString does (property)', () => {
    fc.assert(fc.property(fc.uint8Array({ minLength: 1, maxLength: 64 }), (bytes) => {
      const buf = Buffer.concat([Buffer.from(PAD), bytes, Buffer.from('ü€😀'), Buffer.from(PAD)]);
      expect(utf8Text(buf, 0, buf.length)).toBe(buf.toString('utf8'));
    }), { numRuns: 300 });
  });

  it('utf8ArrayText is the text in brackets, for runs small and large, one after the other (its buffer is reused), malformed bytes included (property)', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.nat({ max: 3000 }), fc.uint8Array({ maxLength: 4 })), { minLength: 1, maxLength: 4 }), (runs) => {
      for (const [text, pad, bytes] of runs) {
        const buf = Buffer.concat([Buffer.from('x'), Buffer.from('p'.repeat(pad)), Buffer.from(text), bytes, Buffer.from('y')]);
        expect(utf8ArrayText(buf, 1, buf.length - 1)).toBe(`[${buf.toString('utf8', 1, buf.length - 1)}]`);
      }
    }), { numRuns: 200 });
    const big = Buffer.from(`${'ü'.repeat(700_000)}`);
    expect(utf8ArrayText(big, 0, big.length)).toBe(`[${big.toString()}]`);
  });

  it('keeps ASCII, Latin-1, BMP and astral characters of streamed records, and a malformed byte as U+FFFD', async () => {
    const names = Array.from({ length: 400 }, (_, i) => ['plain ascii', 'Müller–Lüdenscheidt', '漢字かな', 'emoji 😀 𝄞', 'tab\tand "quote"'][i % 5]!);
    const head = Buffer.from(`{"value":[${names.map((n, i) => JSON.stringify({ ID: i, Name: n })).join(',')},{"ID":400,"Name":"bad `);
    const body = Buffer.concat([head, Buffer.from([0xc3, 0x28]), Buffer.from(' byte"}]}')]);
    const server = await serve({
      '/svc/Products': (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end(body); },
    });
    const items = await collect(client(server).from<{ ID: number; Name: string }>('Products').stream());
    expect(items.map((i) => i.value?.Name)).toEqual([...names, 'bad \uFFFD( byte']);
  });
});
