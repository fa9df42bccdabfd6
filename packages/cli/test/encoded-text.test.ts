import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EncodedText, FLUSH_BYTES, type TextOutput } from '../src/encoded-text.js';
import { FileSink } from '../src/output.js';

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

  it('fills a buffer again only once its bytes were written', () => {
    const text = new EncodedText(64);
    text.add('first\n');
    const first = text.take();
    text.add('second\n');
    const second = text.take();
    // Neither came back: each batch got a buffer of its own.
    expect(second.buffer).not.toBe(first.buffer);
    text.written(first);
    text.add('third\n');
    const third = text.take();
    expect(third.buffer).toBe(first.buffer);
    expect(third.toString('utf8')).toBe('third\n');
    expect(second.toString('utf8')).toBe('second\n');
  });

  it('keeps no buffer of another size for reuse (a batch too large for one, or a slice of a shared one)', () => {
    const text = new EncodedText(8);
    text.add('x'.repeat(20));
    const large = text.take();
    text.written(large);
    text.written(Buffer.from('12345678'));
    text.add('y');
    const next = text.take();
    expect(next.buffer).not.toBe(large.buffer);
    expect(next.buffer.byteLength).toBe(8);
  });

  it('writes through a real file byte for byte, never refilling a buffer the file has not written yet', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-encoded-'));
    try {
      const path = join(dir, 'out.ndjson');
      const sink = await FileSink.open(path);
      const text = new EncodedText();
      // Buffers between a write and its completion; a take() of one of them would overwrite bytes not yet written.
      const inFlight = new Set<ArrayBufferLike>();
      let reusedInFlight = 0;
      let reused = 0;
      const seen = new Set<ArrayBufferLike>();
      const output: TextOutput = {
        write: (bytes, written) => {
          if (inFlight.has(bytes.buffer)) reusedInFlight++;
          if (seen.has(bytes.buffer)) reused++;
          seen.add(bytes.buffer);
          inFlight.add(bytes.buffer);
          return sink.write(bytes, () => {
            inFlight.delete(bytes.buffer);
            written();
          });
        },
      };
      const expected: string[] = [];
      for (let batch = 0; batch < 40; batch++) {
        // Text with multi-byte characters, each batch different.
        const line = `{"batch":${batch},"name":"été ${'ß'.repeat(batch % 7)} 漢字 😀"}\n`;
        // Added a run of records at a time until a flush's worth is in, as an export does.
        const run = line.repeat(500);
        while (text.bytes < FLUSH_BYTES) {
          text.add(run);
          expected.push(run);
        }
        // Every other flush goes out without waiting for the one before to resolve.
        const write = text.writeTo(output);
        if (batch % 2 === 1) await write;
      }
      await text.writeTo(output);
      await sink.commit();
      expect(await readFile(path, 'utf8')).toBe(expected.join(''));
      expect(reusedInFlight).toBe(0);
      // The file's completions did bring buffers back.
      expect(reused).toBeGreaterThan(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
