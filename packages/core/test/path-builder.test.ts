import { describe, expect, it } from 'vitest';
import { ConfigError, PathBuilder } from '@sluice/core';

describe('PathBuilder', () => {
  it('joins segments with single slashes', () => {
    expect(new PathBuilder('users').add(42).add('posts').toString()).toBe('users/42/posts');
  });

  it('normalises slashes around the first segment', () => {
    expect(new PathBuilder('/v1/users/').add('7').toString()).toBe('/v1/users/7');
  });

  it('encodes a slash, question mark, hash and percent inside a value as one segment', () => {
    expect(new PathBuilder('files').add('a/b?c#d%e').toString()).toBe('files/a%2Fb%3Fc%23d%25e');
  });

  it('refuses . and .. as values: no URL carries them as a plain segment', () => {
    expect(() => new PathBuilder('files').add('..')).toThrow(ConfigError);
    expect(() => new PathBuilder('files').add('.')).toThrow(ConfigError);
    expect(new PathBuilder('files').add('...').add('.x').add('%2e%2e').toString()).toBe('files/.../.x/%252e%252e');
  });

  it('keeps one leading slash of the first segment, never two (no network-path reference)', () => {
    expect(new PathBuilder('//evil.example/x').add('y').toString()).toBe('/evil.example/x/y');
    expect(new PathBuilder('users').toString()).toBe('users');
  });

  it('encodes a backslash inside a value', () => {
    expect(new PathBuilder('files').add('..\\admin').toString()).toBe('files/..%5Cadmin');
  });

  it('encodes spaces and non-ASCII', () => {
    expect(new PathBuilder('people').add('Zoë Ålund').toString()).toBe('people/Zo%C3%AB%20%C3%85lund');
  });

  it('keeps OData key syntax readable', () => {
    expect(new PathBuilder('Orders').add("(Id=1,Name='x')").toString()).toBe("Orders/(Id=1,Name='x')");
  });

  it('writes bigints in decimal', () => {
    expect(new PathBuilder('n').add(2n ** 70n).toString()).toBe('n/1180591620717411303424');
  });

  it('rejects empty segments with ConfigError', () => {
    expect(() => new PathBuilder('')).toThrow(ConfigError);
    expect(() => new PathBuilder('a').add('')).toThrow(ConfigError);
  });
});
