import { describe, expect, it } from 'vitest';
import { EncodedText } from '../src/encoded-text.js';

describe('EncodedText', () => {
  it('gathers text as the UTF-8 bytes of all of it, whatever the characters', () => {
    const pieces = ['{"Name":"plain"}\n', '{"Name":"é ü ß"}\n', '{"Name":"漢字"}\n', '{"Name":"😀 \\" \\\\"}\n', ''];
    const text = new EncodedText();
    for (const piece of pieces) text.add(piece);
    expect(text.bytes).toBe(Buffer.byteLength(pieces.join('')));
    expect(text.take().toString('utf8')).toBe(pieces.join(''));
    expect(text.bytes).toBe(0);
  });

  it('takes a larger buffer for a batch that does not fit, keeping what came before', () => {
    const text = new EncodedText(8);
    text.add('ab');
    const big = `${'x'.repeat(50)}€${'y'.repeat(50)}`;
    text.add(big);
    text.add('z');
    expect(text.take().toString('utf8')).toBe(`ab${big}z`);
  });

  it('never writes into bytes it handed out (the output may not have written them yet)', () => {
    const text = new EncodedText(64);
    text.add('first batch\n');
    const first = text.take();
    text.add('second batch\n');
    const second = text.take();
    expect(first.toString('utf8')).toBe('first batch\n');
    expect(second.toString('utf8')).toBe('second batch\n');
    expect(text.take()).toHaveLength(0);
  });
});
