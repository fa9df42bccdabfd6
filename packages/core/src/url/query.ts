/** A value accepted in a request's `query` option. Arrays repeat the parameter. */
export type QueryValue = string | number | boolean | bigint | null | undefined | readonly (string | number | boolean | bigint)[];

/** The `query` option of a request: a record, or `URLSearchParams` / entries you already have. */
export type QueryInit = Readonly<Record<string, QueryValue>> | URLSearchParams;

/**
 * Percent-encodes a query name or value: spaces become `%20` (never `+`), and `& = + # %` are always
 * encoded so a value cannot start another parameter; `$ , : @ / ? ' ( ) *` stay readable, which keeps
 * OData options such as `$filter=Name eq 'x'` legible.
 *
 * @example
 * ```ts
 * encodeQueryComponent("Name eq 'a&b'") // "Name%20eq%20'a%26b'"
 * ```
 */
export function encodeQueryComponent(text: string): string {
  return encodeURIComponent(text).replace(/%(24|2C|3A|40|2F|3F)/g, (m) => decodeURIComponent(m));
}

/** Serialises a `query` option to a query string without the leading `?` (empty when nothing to add). */
export function serializeQuery(query: QueryInit): string {
  const parts: string[] = [];
  const add = (name: string, value: unknown): void => {
    parts.push(`${encodeQueryComponent(name)}=${encodeQueryComponent(String(value))}`);
  };
  if (query instanceof URLSearchParams) {
    for (const [name, value] of query) add(name, value);
  } else {
    for (const name of Object.keys(query)) {
      const value = query[name];
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) add(name, item);
      else add(name, value);
    }
  }
  return parts.join('&');
}

/** Appends a serialised query to a URL or path, before any fragment. */
export function appendQuery(url: string, query: string): string {
  if (!query) return url;
  const hash = url.indexOf('#');
  const head = hash < 0 ? url : url.slice(0, hash);
  const tail = hash < 0 ? '' : url.slice(hash);
  const sep = head.includes('?') ? (head.endsWith('?') || head.endsWith('&') ? '' : '&') : '?';
  return head + sep + query + tail;
}
