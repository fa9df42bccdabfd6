import fc from 'fast-check';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ItemScanner } from '../src/read/scanner.js';

/** Feeds `bytes` to a scanner in the given cut points and returns the parsed elements and envelope. */
function scan(text: string, cuts: number[], paths: string[][] = [['value']]): { items: unknown[]; envelope: Record<string, unknown> } {
  const bytes = Buffer.from(text, 'utf8');
  const scanner = new ItemScanner(paths);
  const items: unknown[] = [];
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b), bytes.length]) {
    if (cut <= from) continue;
    // Copy so the scanner cannot rely on the previous chunk's memory.
    const batch = scanner.push(Uint8Array.from(bytes.subarray(from, cut)));
    let next = 0;
    const ranges = (to: number): void => {
      for (; next < to; next++) items.push(JSON.parse(batch.buf.toString('utf8', batch.starts[next], batch.ends[next])));
    };
    for (const group of batch.parsed) {
      ranges(group.after);
      items.push(...group.values);
    }
    ranges(batch.starts.length);
    from = cut;
  }
  return { items, envelope: scanner.end() };
}

const tricky = [
  { ID: 1, Name: 'plain' },
  { ID: 2, Name: 'quote " and backslash \\ and \\" mixed', Nested: { a: [1, { b: '}' }], c: ']' } },
  { ID: 3, Name: 'unicode é ü 漢字 😀', Esc: '\u0000\n\t\\\\' },
  { ID: 4, Name: '\\', Tail: '\\\\"' },
  'a string element',
  42,
  null,
  true,
  [1, [2, [3]]],
  { Long: 'x'.repeat(70) + '\\"' + 'y\\'.repeat(40) + '"'.repeat(3) + 'z'.repeat(100) + '\\' },
];

describe('ItemScanner', () => {
  it('finds every element of value and keeps the rest as the envelope', () => {
    const doc = JSON.stringify({ '@odata.context': 'ctx', '@odata.count': 9, value: tricky, '@odata.nextLink': 'http://x/next?$skiptoken=9' });
    const { items, envelope } = scan(doc, []);
    expect(items).toEqual(tricky);
    expect(envelope).toEqual({ '@odata.context': 'ctx', '@odata.count': 9, value: [], '@odata.nextLink': 'http://x/next?$skiptoken=9' });
  });

  it('gives identical results on every chunking (property)', () => {
    const doc = JSON.stringify({ a: { value: 'decoy' }, value: tricky, '@odata.nextLink': 'n' }, null, 1);
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: Buffer.byteLength(doc) }), { maxLength: 40 }), (cuts) => {
      const { items, envelope } = scan(doc, cuts);
      expect(items).toEqual(tricky);
      expect(envelope['@odata.nextLink']).toBe('n');
      expect(envelope['a']).toEqual({ value: 'decoy' });
    }), { numRuns: 150 });
  });

  it('handles arbitrary JSON records byte by byte (property)', () => {
    fc.assert(fc.property(fc.array(fc.jsonValue(), { maxLength: 8 }), fc.array(fc.nat(), { maxLength: 30 }), (records, cuts) => {
      const doc = JSON.stringify({ value: records });
      const expected = JSON.parse(doc).value as unknown[];
      const { items } = scan(doc, cuts.map((c) => c % (Buffer.byteLength(doc) + 1)));
      expect(items).toEqual(expected);
    }), { numRuns: 150 });
  });

  it('parses runs of records at once and still splits exactly around nested arrays and bad records', () => {
    const rows = Array.from({ length: 300 }, (_, i) => (i % 7 === 0 ? { ID: i, Nested: [{ a: '},' }, { b: [{}, {}] }] } : { ID: i, Name: `r},{${i}` }));
    const doc = JSON.stringify({ value: rows, '@odata.nextLink': 'n' });
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: Buffer.byteLength(doc) }), { maxLength: 6 }), (cuts) => {
      const { items, envelope } = scan(doc, cuts);
      expect(items).toEqual(rows);
      expect(envelope['@odata.nextLink']).toBe('n');
    }), { numRuns: 50 });
    const scanner = new ItemScanner([['value']]);
    const batch = scanner.push(Buffer.from(doc));
    expect(batch.parsed.length).toBeGreaterThan(0);
  });

  it('splits v2 records whose nested __metadata and __deferred objects end in "},", compact or indented', () => {
    const rows = Array.from({ length: 200 }, (_, i) => ({
      __metadata: { uri: `http://x/P(${i})`, type: 'Demo.Product' }, ID: i, Name: `p},{${i}`,
      Category: { __deferred: { uri: `http://x/P(${i})/Category` } },
    }));
    for (const doc of [JSON.stringify({ d: { results: rows, __next: 'n' } }), JSON.stringify({ d: { results: rows, __next: 'n' } }, null, 1)]) {
      fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: Buffer.byteLength(doc) }), { maxLength: 6 }), (cuts) => {
        const { items, envelope } = scan(doc, cuts, [['d', 'results'], ['d']]);
        expect(items).toEqual(rows);
        expect(envelope).toEqual({ d: { results: [], __next: 'n' } });
      }), { numRuns: 40 });
    }
    // A chunk that stops right after a record's nested "}," still hands the records before it out parsed.
    const doc = JSON.stringify({ d: { results: rows } });
    const cut = doc.indexOf('"Demo.Product"},', doc.indexOf('P(150)')) + '"Demo.Product"},'.length;
    const batch = new ItemScanner([['d', 'results']]).push(Buffer.from(doc.slice(0, cut)));
    expect(batch.parsed.flatMap((g) => g.values)).toEqual(rows.slice(0, 150));
  });

  it('reads the v2 verbose array at d.results and the envelope around it', () => {
    const doc = JSON.stringify({ d: { __count: '2', results: [{ ID: 1 }, { ID: 2 }], __next: 'http://x/n' } });
    const { items, envelope } = scan(doc, [5, 17, 30], [['d', 'results'], ['d']]);
    expect(items).toEqual([{ ID: 1 }, { ID: 2 }]);
    expect(envelope).toEqual({ d: { __count: '2', results: [], __next: 'http://x/n' } });
  });

  it('ignores an array of the same name nested elsewhere', () => {
    const doc = JSON.stringify({ meta: { value: [{ no: 1 }] }, value: [{ yes: 1 }] });
    expect(scan(doc, [3, 9]).items).toEqual([{ yes: 1 }]);
  });

  it('delivers an element as soon as its last byte arrived, before the page ends', () => {
    const scanner = new ItemScanner([['value']]);
    const texts = (b: ReturnType<ItemScanner['push']>): unknown[] => [
      ...b.parsed.flatMap((g) => g.values), ...b.starts.map((s, i) => JSON.parse(b.buf.toString('utf8', s, b.ends[i]))),
    ];
    expect(texts(scanner.push(Buffer.from('{"value":[{"ID":1},{"ID":')))).toEqual([{ ID: 1 }]);
    expect(texts(scanner.push(Buffer.from('2}]}')))).toEqual([{ ID: 2 }]);
  });

  it('joins a record that spans chunks alone, not with the rest of the chunk it ends in', () => {
    const rows = Array.from({ length: 600 }, (_, i) => ({ ID: i, Name: `row ${i}` }));
    const doc = Buffer.from(JSON.stringify({ value: rows }));
    const cut = doc.indexOf('"row 99"');
    const scanner = new ItemScanner([['value']]);
    scanner.push(doc.subarray(0, cut));
    const batch = scanner.push(doc.subarray(cut, doc.indexOf('"row 500"')));
    const record = Buffer.from(JSON.stringify(rows[99]));
    expect(batch.starts).toEqual([0]);
    expect(batch.buf.toString('utf8', batch.starts[0], batch.ends[0])).toBe(record.toString());
    expect(batch.buf.length).toBe(record.length);
    expect(batch.parsed.flatMap((g) => g.values)).toEqual(rows.slice(100, 500));
  });

  it('keeps no hold of the records it parsed once it handed them out (the page they came from is still being read)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rows = Array.from({ length: 600 }, (_, i) => ({ ID: i, Name: `row ${i}` }));
    const doc = Buffer.from(JSON.stringify({ value: rows, '@odata.nextLink': 'next' }));
    const scanner = new ItemScanner([['value']]);
    // The records of the first chunk, parsed by the scanner, seen only through weak references here.
    let first = 0;
    const handedOut = ((): WeakRef<object>[] => {
      const batch = scanner.push(doc.subarray(0, doc.indexOf('"row 500"')));
      const values = batch.parsed.flatMap((g) => g.values) as object[];
      expect(values.length).toBeGreaterThan(400);
      first = values.length + batch.starts.length;
      return [new WeakRef(batch.parsed), new WeakRef(values[0]!), new WeakRef(values.at(-1)!)];
    })();
    // A weak reference holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(handedOut.map((ref) => ref.deref())).toEqual([undefined, undefined, undefined]);
    // The scanner goes on reading the page.
    const rest = scanner.push(doc.subarray(doc.indexOf('"row 500"') - 1));
    expect(first + rest.parsed.flatMap((g) => g.values).length + rest.starts.length).toBe(600);
    expect(scanner.end()['@odata.nextLink']).toBe('next');
  });

  it('keeps no body chunk once it has scanned it (the scanner of a page lives as long as the page is read)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rows = Array.from({ length: 300 }, (_, i) => ({ ID: i, Name: `row ${i}` }));
    const scanner = new ItemScanner([['value']]);
    let records = 0;
    // Two chunks (split inside a record, so one element spans them), seen only through weak references here.
    const chunks = ((): WeakRef<Buffer>[] => {
      const doc = Buffer.from(JSON.stringify({ value: rows, '@odata.nextLink': 'next' }));
      const cut = doc.indexOf('"row 200"');
      const parts = [Buffer.from(doc.subarray(0, cut)), Buffer.from(doc.subarray(cut))];
      for (const part of parts) {
        const batch = scanner.push(part);
        records += batch.parsed.reduce((n, g) => n + g.values.length, 0) + batch.starts.length;
      }
      return parts.map((part) => new WeakRef(part));
    })();
    expect(records).toBe(300);
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(chunks.map((ref) => ref.deref())).toEqual([undefined, undefined]);
    // The envelope was copied out of them: the next link is still there.
    expect(scanner.end()['@odata.nextLink']).toBe('next');
  });

  it('throws at the end when the body was cut short', () => {
    const scanner = new ItemScanner([['value']]);
    scanner.push(Buffer.from('{"value":[{"ID":1},{"ID":2'));
    expect(() => scanner.end()).toThrow(SyntaxError);
  });

  it('throws at the end when the body is not JSON', () => {
    const scanner = new ItemScanner([['value']]);
    scanner.push(Buffer.from('<html>oops</html>'));
    expect(() => scanner.end()).toThrow(SyntaxError);
    expect(scanner.foundArray).toBe(false);
  });
});
