// RFC 3986 reference resolution (section 5.2), strict mode, on strings.

interface Parts {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

// RFC 3986 appendix B: the regular expression that splits any URI reference into its five parts.
const SPLIT = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

function split(ref: string): Parts {
  const m = SPLIT.exec(ref)!;
  return { scheme: m[1], authority: m[2], path: m[3] ?? '', query: m[4], fragment: m[5] };
}

/** RFC 3986 section 5.2.4: remove `.` and `..` segments. */
export function removeDotSegments(path: string): string {
  let input = path;
  let output = '';
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '/..') {
      input = '/';
      output = output.slice(0, Math.max(0, output.lastIndexOf('/')));
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const end = next < 0 ? input.length : next;
      output += input.slice(0, end);
      input = input.slice(end);
    }
  }
  return output;
}

/** RFC 3986 section 5.2.3: merge a relative-path reference with the base path. */
function merge(base: Parts, refPath: string): string {
  if (base.authority !== undefined && base.path === '') return '/' + refPath;
  const slash = base.path.lastIndexOf('/');
  return slash < 0 ? refPath : base.path.slice(0, slash + 1) + refPath;
}

/** RFC 3986 section 5.3: recompose the five parts into a string. */
function recompose(p: Parts): string {
  let out = '';
  if (p.scheme !== undefined) out += p.scheme + ':';
  if (p.authority !== undefined) out += '//' + p.authority;
  out += p.path;
  if (p.query !== undefined) out += '?' + p.query;
  if (p.fragment !== undefined) out += '#' + p.fragment;
  return out;
}

/**
 * Resolves `reference` against `base` exactly as RFC 3986 section 5.2.2 (strict parser) says.
 *
 * @example
 * ```ts
 * resolveReference('http://a/b/c/d;p?q', '../g') // 'http://a/b/g'
 * ```
 */
export function resolveReference(base: string, reference: string): string {
  const b = split(base);
  const r = split(reference);
  const t: Parts = { scheme: undefined, authority: undefined, path: '', query: undefined, fragment: r.fragment };
  if (r.scheme !== undefined) {
    t.scheme = r.scheme;
    t.authority = r.authority;
    t.path = removeDotSegments(r.path);
    t.query = r.query;
  } else {
    if (r.authority !== undefined) {
      t.authority = r.authority;
      t.path = removeDotSegments(r.path);
      t.query = r.query;
    } else {
      if (r.path === '') {
        t.path = b.path;
        t.query = r.query !== undefined ? r.query : b.query;
      } else {
        t.path = r.path.startsWith('/') ? removeDotSegments(r.path) : removeDotSegments(merge(b, r.path));
        t.query = r.query;
      }
      t.authority = b.authority;
    }
    t.scheme = b.scheme;
  }
  return recompose(t);
}
