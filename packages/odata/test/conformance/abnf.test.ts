import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createODataClient, datetimeoffset, decimal, guid, int64, type Expr, type FilterBuilder } from '../../src/index.js';
import { matches } from './abnf.js';

const root = 'https://erp.example.com:8443/odata/v4/demo/';
const od = createODataClient({ serviceURL: root, version: '4.0' });
const od2 = createODataClient({ serviceURL: root, version: '2.0' });

/**
 * Checks a URL against the OData ABNF: the whole URL as odataUri, and each option on its own as a
 * system query option (so `%24filter`, which would pass as a custom option, fails) or a custom one.
 */
function expectValid(url: string): void {
  expect(url, 'no %24 for $').not.toMatch(/%24/i);
  const query = url.indexOf('?') < 0 ? '' : url.slice(url.indexOf('?') + 1);
  // In a query a '+' may be read as a space; in a path it is a plain character (RFC 3986 section 3.3).
  expect(query, 'spaces as %20, never +').not.toMatch(/\+/);
  const options = query ? query.split('&') : [];
  for (const option of options) {
    const rule = option.startsWith('$') ? 'systemQueryOption' : 'customQueryOption';
    expect(matches(rule, option), `${rule}: ${option}`).toBe(true);
  }
  // apg's alternation is ordered (PEG-like): a custom option such as A=0%00 is first taken for a
  // nameAndValue that ends early, so custom options are checked on their own above and left out here.
  const system = options.filter((o) => o.startsWith('$'));
  const whole = url.slice(0, url.length - query.length - (query ? 1 : 0)) + (system.length ? `?${system.join('&')}` : '');
  expect(matches('odataUri', whole), `odataUri: ${whole}`).toBe(true);
}

interface P { ID: number; Name: string; Price: number; Stock: string; Guid: string; ReleaseDate: string; Description: string | null; Products: unknown }

const text = fc.string({ unit: 'binary', maxLength: 40 });
const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/);
const scalar = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: false }),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.date({ min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true }),
  fc.uuid().map((u) => guid(u)),
  fc.bigInt({ min: 0n, max: 10n ** 20n }).map((n) => int64(n)),
  fc.tuple(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 99 })).map(([a, b]) => decimal(`${a}.${b}`)),
);

describe('ABNF conformance of built URLs (OData 4.01 construction rules)', () => {
  it('accepts a URL using every query option', () => {
    expectValid(od.from<P>('Products')
      .filter((f) => f.and(f.eq('Name', "O'Brien & Sons 100% + more #1"), f.or(f.contains(f.tolower('Name'), 'x'), f.gt(f.mul(f.add('Price', 1), 2), 10.5))))
      .filter((f) => f.and(f.in('ID', [1, 2, 3]), f.isNull('Description'), f.not(f.startswith('Name', 'A'))))
      .filter((f) => f.any('Products', 'p', (p) => p.gt('Price', 100)))
      .select('ID', 'Name').expand('Category', { select: ['Name'], expand: ['Products'], top: 2, filter: (f) => f.ne('Name', 'x') })
      .orderBy('Price desc', 'Name asc').top(5).skip(10).count().search('blue car').param('sap-client', '100').toURL());
  });

  it('accepts key predicates, navigation and $count segments', () => {
    expectValid(od.from('Products').key(1).toURL());
    expectValid(od.from('OrderItems').key({ OrderID: 1, ItemNo: "A/'b c" }).toURL());
    expectValid(od.from('Products').key(1).nav('Category').toURL());
    expectValid(od.from('Products').key(guid('0f8fad5b-d9cb-469f-a165-70867728950e')).toURL());
    expectValid(od.from('Products').key(datetimeoffset('2024-01-31T10:00:00+02:00')).toURL());
  });

  it('rejects what the builder must never produce', () => {
    expect(matches('systemQueryOption', '%24filter=ID%20eq%201')).toBe(false);
    expect(matches('odataUri', `${root}Products?$filter=ID+eq+1`)).toBe(false);
    expect(matches('odataUri', `${root}Products?$filter=Name%20eq%20'a'b'`)).toBe(false);
  });

  it('stays valid for fuzzed literals in comparisons, functions, in-lists and keys (property)', () => {
    fc.assert(fc.property(scalar, text, fc.array(scalar, { minLength: 1, maxLength: 4 }), (value, needle, list) => {
      const url = od.from<P>('Products').filter((f: FilterBuilder<P>): Expr => f.and(
        f.eq('Name', value), f.contains('Name', needle), f.in('ID', list), f.ne(f.tolower('Name'), needle),
      )).toURL();
      expectValid(url);
    }), { numRuns: 60 });
  });

  it('stays valid for fuzzed keys, select lists, search phrases and custom options (property)', () => {
    fc.assert(fc.property(
      fc.oneof(text, fc.integer(), fc.uuid().map((u) => guid(u)), fc.record({ A: fc.integer(), B: text })),
      fc.array(identifier, { minLength: 1, maxLength: 4 }),
      text.filter((t) => t.trim() !== '' && !t.includes('"')),
      fc.tuple(identifier.filter((n) => !n.startsWith('$')), text),
      (key, select, search, [param, value]) => {
        expectValid(od.from('Things').key(key).toURL());
        expectValid(od.from('Things').select(...select).search(search).param(param, value).toURL());
      },
    ), { numRuns: 80 });
  });

  it('writes v2 filters whose shared syntax (strings, numbers, functions) also matches the ABNF', () => {
    fc.assert(fc.property(text, fc.integer(), (s, n) => {
      const url = od2.from<P>('Products').filter((f) => f.and(f.eq('Name', s), f.gt('ID', n), f.startswith('Name', s))).toURL();
      expect(url).not.toMatch(/%24|\+/);
      const filter = url.slice(url.indexOf('?') + 1);
      expect(matches('systemQueryOption', filter), filter).toBe(true);
    }), { numRuns: 60 });
  });
});
