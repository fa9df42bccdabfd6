import { ConfigError } from '@sluice/core';

/** An ETag given to a write: the string itself, `'*'` (any version), or an entity read earlier. */
export type ETagSource = string | { readonly '@odata.etag'?: unknown } | object;

/**
 * The ETag of an entity read with sluice (kept as `@odata.etag` in both versions: v4 sends it so, v2's
 * `__metadata.etag` and the `ETag` response header are copied there), or of a string.
 *
 * @example
 * ```ts
 * const order = await od.from('Orders').key(7).get()
 * etagOf(order) // 'W/"3"'
 * ```
 */
export function etagOf(source: unknown): string | undefined {
  if (typeof source === 'string') return source;
  if (typeof source === 'object' && source !== null) {
    const etag = (source as Record<string, unknown>)['@odata.etag'];
    return typeof etag === 'string' ? etag : undefined;
  }
  return undefined;
}

/** The `If-Match` value for a write's `etag` option; an entity without an ETag is a ConfigError. */
export function ifMatchOf(etag: ETagSource | undefined, option = 'etag'): string | undefined {
  if (etag === undefined) return undefined;
  const value = etagOf(etag);
  if (value === undefined || value === '') throw new ConfigError(option, 'must be an ETag string, \'*\', or an entity read with its @odata.etag');
  if (/[\r\n]/.test(value)) throw new ConfigError(option, 'must not contain line breaks');
  return value;
}

/** Puts the response's `ETag` header on a decoded entity that has none of its own. */
export function withETag(entity: unknown, header: string | null): unknown {
  if (header === null || typeof entity !== 'object' || entity === null || Array.isArray(entity)) return entity;
  const record = entity as Record<string, unknown>;
  if (typeof record['@odata.etag'] === 'string') return entity;
  return { ...record, '@odata.etag': header };
}
