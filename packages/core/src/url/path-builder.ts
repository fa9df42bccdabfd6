import { ConfigError } from '../errors.js';

/**
 * Percent-encodes one path segment: everything but RFC 3986 unreserved characters and the sub-delims
 * OData keys use (`'()*!,;=:@$&+` stay readable), so a `/`, `?`, `#` or `%` inside a value cannot change
 * the path. The dot segments `.` and `..` are encoded too.
 */
export function encodePathSegment(value: string): string {
  if (value === '.' || value === '..') return value.replace(/\./g, '%2E');
  return encodeURIComponent(value).replace(/%(2C|3B|3D|3A|40|24|26|2B)/g, (m) => decodeURIComponent(m));
}

/**
 * Builds a relative request path from a first segment and values added one segment at a time (SPEC 2.4).
 * The first segment is written as given (it is your code's own route, like `users` or `v1/users`);
 * every added value is percent-encoded as exactly one segment, so user input cannot add segments,
 * climb with `..`, or start a query.
 *
 * @example
 * ```ts
 * new PathBuilder('users').add(42).add('posts').toString()  // 'users/42/posts'
 * new PathBuilder('files').add('a/b?c').toString()          // 'files/a%2Fb%3Fc'
 * ```
 */
export class PathBuilder {
  private readonly segments: string[];

  /** Starts a path with `first` (leading and trailing slashes trimmed to keep one slash per join). */
  constructor(first: string) {
    if (typeof first !== 'string' || first.replace(/^\/+|\/+$/g, '') === '') {
      throw new ConfigError('PathBuilder first segment', 'must be a non-empty string');
    }
    this.segments = [first.replace(/\/+$/g, '')];
  }

  /** Appends one segment; numbers and bigints are written in decimal. Returns `this` for chaining. */
  add(segment: string | number | bigint): this {
    const text = String(segment);
    if (text === '') throw new ConfigError('PathBuilder segment', 'must not be empty');
    this.segments.push(encodePathSegment(text));
    return this;
  }

  /** The relative path, segments joined by single slashes. */
  toString(): string {
    return this.segments.join('/');
  }
}
