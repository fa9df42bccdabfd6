import { ConfigError } from '../errors.js';

/**
 * Percent-encodes one path segment: everything but RFC 3986 unreserved characters and the sub-delims
 * OData keys use (`'()*!,;=:@$&+` stay readable), so a `/`, `\`, `?`, `#` or `%` inside a value cannot
 * change the path. `.` and `..` throw {@link ConfigError}: no URL can carry them as a plain segment (WHATWG
 * URL and servers read `%2E%2E` as `..` too).
 */
export function encodePathSegment(value: string): string {
  if (value === '.' || value === '..') throw new ConfigError('path segment', `must not be ${JSON.stringify(value)}: it would move up or stay in the path`);
  return encodeURIComponent(value).replace(/%(2C|3B|3D|3A|40|24|26|2B)/g, (m) => decodeURIComponent(m));
}

/**
 * Builds a request path from a first segment and values added one segment at a time (SPEC 2.4).
 *
 * - The first segment is your code's own route (`users`, `v1/users`), written as given except that
 *   trailing slashes go and several leading slashes become one: a leading `/` is kept (it matters in
 *   RFC 3986 mode, where it replaces the base path; API mode appends either way), and `//host` can never
 *   turn the path into another host.
 * - Every added value is percent-encoded as exactly one segment: `/`, `\`, `?`, `#` and `%` inside it
 *   are encoded (`a/b` becomes `a%2Fb`), and a value of `.` or `..` is refused with {@link ConfigError}
 *   (no URL can carry it as a plain segment), so user input cannot add segments, climb or start a query.
 * - Empty segments are refused with {@link ConfigError}: an empty first segment, or an empty added value
 *   (which would write `users//posts`).
 *
 * @example
 * ```ts
 * new PathBuilder('users').add(42).add('posts').toString()  // 'users/42/posts'
 * new PathBuilder('/v1/users/').add('7').toString()         // '/v1/users/7'
 * new PathBuilder('files').add('a/b?c').toString()          // 'files/a%2Fb%3Fc'
 * ```
 */
export class PathBuilder {
  private readonly segments: string[];

  /** Starts a path with `first` (trailing slashes trimmed, leading ones collapsed to one). */
  constructor(first: string) {
    if (typeof first !== 'string' || first.replace(/^\/+|\/+$/g, '') === '') {
      throw new ConfigError('PathBuilder first segment', 'must be a non-empty string');
    }
    this.segments = [first.replace(/\/+$/g, '').replace(/^\/+/, '/')];
  }

  /** Appends one segment; numbers and bigints are written in decimal. Returns `this` for chaining. */
  add(segment: string | number | bigint): this {
    const text = String(segment);
    if (text === '') throw new ConfigError('PathBuilder segment', 'must not be empty (it would write an empty segment)');
    this.segments.push(encodePathSegment(text));
    return this;
  }

  /** The path, segments joined by single slashes. */
  toString(): string {
    return this.segments.join('/');
  }
}
