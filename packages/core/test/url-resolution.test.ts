import { describe, expect, it } from 'vitest';
import { isAPIBase, resolveURL, URLNormalization } from '@sluice/core';

describe('API base detection (SPEC 4.3 rule 4)', () => {
  it.each([
    '/api', '/v1', '/v2', '/v3', '/v4', '/v5', '/odata', '/rest', '/graphql', '/soap', '/sap', '/data', '/service', '/services',
  ])('detects the listed prefix %s', (prefix) => {
    expect(isAPIBase(`https://h.example${prefix}`)).toBe(true);
  });

  it('compares prefixes as plain strings, so /apiary and /v10 count', () => {
    expect(isAPIBase('https://h.example/apiary')).toBe(true);
    expect(isAPIBase('https://h.example/v10')).toBe(true);
    expect(isAPIBase('https://h.example/database')).toBe(true);
  });

  it('detects any path with more than one slash', () => {
    expect(isAPIBase('https://h.example/shop/cart')).toBe(true);
    expect(isAPIBase('https://h.example/custom/')).toBe(true);
  });

  it('does not detect a single custom segment', () => {
    expect(isAPIBase('https://h.example/custom')).toBe(false);
    expect(isAPIBase('https://h.example/app?x=/a/b')).toBe(false);
  });

  it('does not detect host-only bases', () => {
    expect(isAPIBase('https://h.example')).toBe(false);
    expect(isAPIBase('https://h.example/')).toBe(false);
    expect(isAPIBase('https://h.example?q=1')).toBe(false);
  });

  it('does not detect a base that fails to parse', () => {
    expect(isAPIBase('not a url')).toBe(false);
    expect(isAPIBase('http://[bad/api')).toBe(false);
    expect(isAPIBase('')).toBe(false);
  });
});

describe('resolveURL in Auto mode (SPEC 4.3 rules 3, 5, 6)', () => {
  const cases: [string, string, string, 'api' | 'rfc3986'][] = [
    ['https://h.example/v1', '/users', 'https://h.example/v1/users', 'api'],
    ['https://h.example/v1', 'users', 'https://h.example/v1/users', 'api'],
    ['https://h.example/v1/', '/users', 'https://h.example/v1/users', 'api'],
    ['https://h.example/v1/', 'users', 'https://h.example/v1/users', 'api'],
    ['https://h.example/shop/cart', '/checkout', 'https://h.example/shop/cart/checkout', 'api'],
    ['https://h.example/apiary', 'bees', 'https://h.example/apiary/bees', 'api'],
    ['https://h.example/sap/opu/odata/sap/API_BP', 'A_BusinessPartner', 'https://h.example/sap/opu/odata/sap/API_BP/A_BusinessPartner', 'api'],
    ['https://h.example/custom', '/users', 'https://h.example/users', 'rfc3986'],
    ['https://h.example/custom', 'users', 'https://h.example/users', 'rfc3986'],
    ['https://h.example', 'users', 'https://h.example/users', 'rfc3986'],
    ['https://h.example/', '/users', 'https://h.example/users', 'rfc3986'],
  ];
  it.each(cases)('%s + %s -> %s (%s)', (baseURL, path, url, strategy) => {
    expect(resolveURL({ baseURL }, path)).toEqual({ url, strategy });
  });

  it('keeps the version prefix of the base when joining (SPEC 9.3)', () => {
    expect(resolveURL({ baseURL: 'https://h.example/v3' }, '/items/1').url).toBe('https://h.example/v3/items/1');
  });

  it('preserves the base query and fragment, adding the slash only to host and path (rule 6)', () => {
    expect(resolveURL({ baseURL: 'https://h.example/v1?sap-client=100' }, '/users').url)
      .toBe('https://h.example/v1/users?sap-client=100');
    expect(resolveURL({ baseURL: 'https://h.example/v1?sap-client=100' }, 'users?$top=2').url)
      .toBe('https://h.example/v1/users?sap-client=100&$top=2');
    expect(resolveURL({ baseURL: 'https://h.example/api#top' }, 'users').url).toBe('https://h.example/api/users#top');
    expect(resolveURL({ baseURL: 'https://h.example/api?a=1#top' }, 'users?b=2').url).toBe('https://h.example/api/users?a=1&b=2#top');
  });

  it('passes absolute URLs given as paths through unchanged in API mode', () => {
    expect(resolveURL({ baseURL: 'https://h.example/v1' }, 'https://other.example/x?y=1').url).toBe('https://other.example/x?y=1');
  });

  it('returns the unchanged path in host-only bases whatever the leading slash', () => {
    expect(resolveURL({ baseURL: 'https://h.example' }, '/a/b').url).toBe('https://h.example/a/b');
  });
});

describe('resolveURL with forced modes (SPEC 4.3 rules 1, 2)', () => {
  it('API mode appends to a custom single-segment prefix', () => {
    expect(resolveURL({ baseURL: 'https://h.example/shop', urlNormalization: URLNormalization.API }, '/checkout'))
      .toEqual({ url: 'https://h.example/shop/checkout', strategy: 'api' });
  });

  it('API mode on a host-only base joins with one slash', () => {
    expect(resolveURL({ baseURL: 'https://h.example', urlNormalization: URLNormalization.API }, '//x').url).toBe('https://h.example/x');
  });

  it('RFC3986 mode lets a leading slash replace the whole base path, even on an API base', () => {
    expect(resolveURL({ baseURL: 'https://h.example/v1/', urlNormalization: URLNormalization.RFC3986 }, '/users'))
      .toEqual({ url: 'https://h.example/users', strategy: 'rfc3986' });
    expect(resolveURL({ baseURL: 'https://h.example/v1/', urlNormalization: URLNormalization.RFC3986 }, 'users').url)
      .toBe('https://h.example/v1/users');
  });
});

describe('RFC3986 mode matches RFC 3986 section 5.4', () => {
  const base = 'http://a/b/c/d;p?q';
  const resolve = (ref: string): string => resolveURL({ baseURL: base, urlNormalization: URLNormalization.RFC3986 }, ref).url;

  // RFC 3986 section 5.4.1, normal examples.
  it.each([
    ['g:h', 'g:h'], ['g', 'http://a/b/c/g'], ['./g', 'http://a/b/c/g'], ['g/', 'http://a/b/c/g/'], ['/g', 'http://a/g'],
    ['//g', 'http://g'], ['?y', 'http://a/b/c/d;p?y'], ['g?y', 'http://a/b/c/g?y'], ['#s', 'http://a/b/c/d;p?q#s'],
    ['g#s', 'http://a/b/c/g#s'], ['g?y#s', 'http://a/b/c/g?y#s'], [';x', 'http://a/b/c/;x'], ['g;x', 'http://a/b/c/g;x'],
    ['g;x?y#s', 'http://a/b/c/g;x?y#s'], ['', 'http://a/b/c/d;p?q'], ['.', 'http://a/b/c/'], ['./', 'http://a/b/c/'],
    ['..', 'http://a/b/'], ['../', 'http://a/b/'], ['../g', 'http://a/b/g'], ['../..', 'http://a/'], ['../../', 'http://a/'],
    ['../../g', 'http://a/g'],
  ])('5.4.1: %s -> %s', (ref, expected) => {
    expect(resolve(ref)).toBe(expected);
  });

  // RFC 3986 section 5.4.2, abnormal examples (strict parser for "http:g").
  it.each([
    ['../../../g', 'http://a/g'], ['../../../../g', 'http://a/g'], ['/./g', 'http://a/g'], ['/../g', 'http://a/g'],
    ['g.', 'http://a/b/c/g.'], ['.g', 'http://a/b/c/.g'], ['g..', 'http://a/b/c/g..'], ['..g', 'http://a/b/c/..g'],
    ['./../g', 'http://a/b/g'], ['./g/.', 'http://a/b/c/g/'], ['g/./h', 'http://a/b/c/g/h'], ['g/../h', 'http://a/b/c/h'],
    ['g;x=1/./y', 'http://a/b/c/g;x=1/y'], ['g;x=1/../y', 'http://a/b/c/y'], ['g?y/./x', 'http://a/b/c/g?y/./x'],
    ['g?y/../x', 'http://a/b/c/g?y/../x'], ['g#s/./x', 'http://a/b/c/g#s/./x'], ['g#s/../x', 'http://a/b/c/g#s/../x'],
    ['http:g', 'http:g'],
  ])('5.4.2: %s -> %s', (ref, expected) => {
    expect(resolve(ref)).toBe(expected);
  });
});
