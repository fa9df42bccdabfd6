// Which control information an entity keeps (decided once, for reads, writes, batch and delta): its
// ETag and its type; expanded collections keep their count and next link. Everything else the JSON
// format adds (context, metadata ETag, ids, edit/read/navigation/association/media links, property type
// hints) is removed; instance annotations of vocabularies (`@Core.Messages`, `Price@Measures.ISOCurrency`)
// are data and stay.

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
  for (const key in record) {
    const at = key.indexOf('@');
    if (at >= 0 && keptKey(key, at) !== key) return true;
    const v = record[key];
    if (typeof v === 'object' && v !== null && hasControl(v, depth + 1)) return true;
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
