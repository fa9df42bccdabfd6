import { ConfigError } from '../errors.js';
import { redactURL } from '../redact.js';

/** `.` or `..`, also percent-encoded (`%2e`, `.%2E`...), which servers and WHATWG URL treat alike. */
function dotKind(segment: string): 0 | 1 | 2 {
  if (segment.length > 6) return 0;
  const plain = segment.replace(/%2e/gi, '.');
  return plain === '.' ? 1 : plain === '..' ? 2 : 0;
}

/**
 * Removes dot segments (RFC 3986 section 5.2.4) from a path that API mode appends to the base path, and
 * refuses one that would climb above it: `users/../orders` gives `orders`, `../admin` a {@link ConfigError},
 * so a user value in a path can never reach another API on the same host. Percent-encoded dots count as
 * dots; a dot segment joined with a backslash (`..\admin`, which WHATWG URL reads as `../admin`) is refused.
 * A path without dots is returned as it is, without allocating.
 *
 * @example
 * ```ts
 * removeDotSegmentsBelowBase('a/./b/../c')  // 'a/c'
 * removeDotSegmentsBelowBase('../admin')    // throws ConfigError
 * ```
 */
export function removeDotSegmentsBelowBase(path: string): string {
  if (!path.includes('.') && !/%2e/i.test(path)) return path;
  const segments = path.split('/');
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const last = i === segments.length - 1;
    const kind = dotKind(segment);
    if (kind === 0) {
      if (segment.includes('\\') && segment.split('\\').some((part) => dotKind(part) !== 0)) {
        throw new ConfigError('path', `has a dot segment joined by a backslash: ${JSON.stringify(redactURL(path))}`);
      }
      out.push(segment);
      continue;
    }
    if (kind === 2) {
      if (out.length === 0) throw new ConfigError('path', `climbs above the base path with '..': ${JSON.stringify(redactURL(path))}`);
      out.pop();
    }
    // A dot segment at the end leaves the path ending in a slash (`a/b/..` is `a/`).
    if (last) out.push('');
  }
  return out.join('/');
}
