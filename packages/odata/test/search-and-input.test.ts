import { ConfigError } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { createODataClient, SearchBuilder } from '../src/index.js';
import { matches } from './conformance/abnf.js';

const root = 'https://erp.example.com/svc/';
const od4 = createODataClient({ serviceURL: root, version: '4.0' });
const od2 = createODataClient({ serviceURL: root, version: '2.0' });
const searchOf = (url: string): string => new URL(url).searchParams.get('$search') ?? '';

describe('$search builder', () => {
  it('writes AND, OR, NOT, phrases and grouping with OData precedence', () => {
    const url = od4.from('Products').search((s) => s.and('blue', s.or('car', 'bike'), s.not(s.phrase('red roof')))).toURL();
    expect(searchOf(url)).toBe('blue AND (car OR bike) AND NOT "red roof"');
    expect(url).toContain('$search=blue%20AND%20(car%20OR%20bike)%20AND%20NOT%20%22red%20roof%22');
    expect(searchOf(od4.from('P').search((s) => s.or(s.and('a', 'b'), s.not(s.or('c', 'd')))).toURL())).toBe('a AND b OR NOT (c OR d)');
    // A term that cannot be a searchWord becomes a phrase: spaces, parentheses, the operators themselves.
    expect(searchOf(od4.from('P').search((s) => s.and('two words', 'AND', '(x)', "O'Brien")).toURL())).toBe('"two words" AND "AND" AND "(x)" AND O\'Brien');
    // A plain string stays one phrase, as before.
    expect(searchOf(od4.from('P').search('blue car').toURL())).toBe('"blue car"');
    expect(od2.from('P').search((s) => s.or('a', 'b')).toURL()).toContain('?search=a%20OR%20b');
  });

  it('escapes per the ABNF, so every built expression matches the search rule', () => {
    const s = new SearchBuilder();
    const exprs = [
      s.and('blue', s.or('car', 'bike'), s.not(s.phrase('red roof'))),
      s.or(s.term('100%'), s.term('a&b'), s.term('x=y;z'), s.term('#tag'), s.phrase("it's 5 o'clock")),
      s.not(s.and('ünïcödé', s.phrase('tab\tin'))),
    ];
    for (const expr of exprs) {
      const url = od4.from('P').search(expr).toURL();
      // The ABNF is matched by a PEG-style parser, for which a searchWord would swallow a following %20
      // (pct-encoded counts as a searchChar): the check reads the separators as the SP that RWS allows.
      const query = url.slice(url.indexOf('?') + 1).replace(/%20/g, ' ');
      expect(matches('search', query), query).toBe(true);
    }
  });

  it('refuses what cannot be written: a double quote, an empty term, no terms', () => {
    expect(() => od4.from('P').search((s) => s.phrase('say "hi"'))).toThrow(ConfigError);
    expect(() => od4.from('P').search((s) => s.and('a', 'b"c'))).toThrow(ConfigError);
    expect(() => od4.from('P').search((s) => s.or())).toThrow(ConfigError);
    expect(() => od4.from('P').search((s) => s.term(' '))).toThrow(ConfigError);
    expect(() => od4.from('P').search((() => 'x') as never)).toThrow(ConfigError);
  });
});

describe('input that cannot be encoded', () => {
  it('turns a lone UTF-16 surrogate in a filter value, key, raw filter or param into a ConfigError', () => {
    const lone = 'a\uD800b';
    expect(() => od4.from('P').filter((f) => f.eq('Name', lone)).toURL()).toThrow(ConfigError);
    expect(() => od4.from('P').key(lone).toURL()).toThrow(ConfigError);
    expect(() => od4.from('P').key({ A: 1, B: '\uDFFF' }).toURL()).toThrow(ConfigError);
    expect(() => od4.from('P').filter(`Name eq '${lone}'`).toURL()).toThrow(ConfigError);
    expect(() => od4.from('P').param('x', lone).toURL()).toThrow(ConfigError);
    expect(() => od4.from('P').filter((f) => f.eq('Name', lone)).toURL()).toThrow(/lone UTF-16 surrogate/);
    // A proper pair is fine.
    expect(od4.from('P').key('😀').toURL()).toBe(`${root}P('%F0%9F%98%80')`);
  });
});
