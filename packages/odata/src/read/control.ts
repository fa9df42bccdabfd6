// Which control information an entity keeps (decided once, for reads, writes, batch and delta): its
// ETag and its type; expanded collections keep their count and next link. Everything else the JSON
// format adds (context, metadata ETag, ids, edit/read/navigation/association/media links, property type
// hints) is removed; instance annotations of vocabularies (`@Core.Messages`, `Price@Measures.ISOCurrency`)
// are data and stay. OData v2's `__metadata` is mapped to the same keys (`v2Control`).

/** Entity-level control information kept, by its long name. */
const KEEP_ENTITY: ReadonlySet<string> = new Set(['etag', 'type']);
/** Control information on a property kept (an expanded collection's `@odata.count` and `@odata.nextLink`). */
const KEEP_PROPERTY: ReadonlySet<string> = new Set(['count', 'nextLink']);

/**
 * What becomes of an annotated key (`at` is the position of its `@`): the key to keep it under (4.01
 * short names such as `@etag` spelt as `@odata.etag`), or undefined to drop it.
 */
function keptKey(key: string, at: number): string | undefined {
  const term = key.slice(at + 1);
  let control: string | undefined;
  if (term.startsWith('odata.')) control = term.slice(6);
  else if (!term.includes('.')) control = term; // OData JSON 4.01: control information without the odata. prefix
  if (control === undefined) return key; // An instance annotation of a vocabulary: data.
  const keep = at === 0 ? KEEP_ENTITY.has(control) : KEEP_PROPERTY.has(control);
  return keep ? `${key.slice(0, at)}@odata.${control}` : undefined;
}

/** Whether `value` (an entity, a complex value, an array of them) holds control information to remove or rename. */
function hasControl(value: unknown, depth: number): boolean {
  if (typeof value !== 'object' || value === null || depth > 64) return false;
  if (Array.isArray(value)) {
    for (const v of value) if (typeof v === 'object' && v !== null && hasControl(v, depth + 1)) return true;
    return false;
  }
  if (value instanceof Date || value instanceof Uint8Array) return false;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const v = record[key];
    if (typeof v === 'object' && v !== null && hasControl(v, depth + 1)) return true;
    // The common annotations first, without building strings: an entity's ETag and type are kept as they are.
    if (key.charCodeAt(0) === 64 /* @ */ ? key !== '@odata.etag' && key !== '@odata.type' && keptKey(key, 0) !== key : key.includes('@') && keptKey(key, key.indexOf('@')) !== key) return true;
  }
  return false;
}

function strip(value: unknown, depth: number): unknown {
  if (typeof value !== 'object' || value === null || depth > 64 || value instanceof Date || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map((v) => strip(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const at = key.indexOf('@');
    const name = at < 0 ? key : keptKey(key, at);
    if (name !== undefined) out[name] = strip(v, depth + 1);
  }
  return out;
}

/**
 * An entity (or an array of entities) with only the control information an entity keeps: `@odata.etag`
 * and `@odata.type` on entities, `@odata.count` and `@odata.nextLink` on expanded collections. The value
 * itself when it has nothing to remove (no copy), else a copy. @internal
 */
export function withoutControl<T>(value: T): T {
  return hasControl(value, 0) ? strip(value, 0) as T : value;
}

const AT = 0x40;
const QUOTE = 0x22;
/** An `@` written as a JSON escape (`"\u0040odata.id"`): JSON.parse reads it as `@`, so it counts as one. */
const ESCAPED_AT = Buffer.from('\\u0040', 'latin1');
/** `odata.etag"` and `odata.type"` after the `@`, as bytes; they differ only from the 7th byte. */
const ODATA_DOT = [...'odata.'].map((c) => c.charCodeAt(0));
const ETAG = [...'etag"'].map((c) => c.charCodeAt(0));
const TYPE = [...'type"'].map((c) => c.charCodeAt(0));

function bytesAt(bytes: Uint8Array, at: number, expected: readonly number[]): boolean {
  if (at + expected.length > bytes.length) return false;
  for (let i = 0; i < expected.length; i++) if (bytes[at + i] !== expected[i]) return false;
  return true;
}

/** Whether the `@` at `at` starts a kept key: `"@odata.etag"` or `"@odata.type"`. */
function keptKeyAt(bytes: Uint8Array, at: number): boolean {
  if (at === 0 || bytes[at - 1] !== QUOTE || !bytesAt(bytes, at + 1, ODATA_DOT)) return false;
  return bytesAt(bytes, at + 7, ETAG) || bytesAt(bytes, at + 7, TYPE);
}

/**
 * Whether the bytes `start`..`end` of a page (a run of records) hold an `@` other than in the kept
 * `"@odata.etag"` / `"@odata.type"` keys, or an escaped one (`\u0040`, whatever follows it): only then can
 * its records hold control information to remove, so the records of a page without any skip
 * {@link withoutControl} (a memchr or two and a few byte compares instead of a walk over every key). @internal
 */
export function mayHoldControl(buf: Buffer, start: number, end: number): boolean {
  const bytes = buf.subarray(start, end);
  // A backslash is rare in records, so this is about one memchr; an escaped name is read as the plain one.
  if (bytes.indexOf(ESCAPED_AT) >= 0) return true;
  for (let at = bytes.indexOf(AT); at >= 0; at = bytes.indexOf(AT, at + 1)) {
    if (!keptKeyAt(bytes, at)) return true;
  }
  return false;
}

/**
 * The control information an OData v2 entity keeps from its `__metadata`, under the v4 names: `etag` as
 * `@odata.etag`; `type` as `@odata.type` (`#S.SpecialOrder`) only when it names another type than the one
 * the read expects (`expected`, the qualified name `$metadata` declares), as v4's minimal metadata sends
 * it, so that the same service reads the same through v2 and v4. Without `$metadata` the expected type is
 * unknown and the type is not kept (v2 names it on every entity). `uri`, `id`, media and link fields are
 * dropped, as their v4 counterparts are. @internal
 */
export function v2Control(metadata: unknown, expected: string | undefined, out: Record<string, unknown>): void {
  if (typeof metadata !== 'object' || metadata === null) return;
  const { etag, type } = metadata as { etag?: unknown; type?: unknown };
  if (typeof etag === 'string') out['@odata.etag'] = etag;
  if (typeof type === 'string' && expected !== undefined && type !== expected) out['@odata.type'] = `#${type}`;
}
