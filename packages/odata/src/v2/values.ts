import type { DecodeContext } from '../protocol/types.js';

// OData v2 JSON verbose format: "\/Date(<ms>[+-<offset minutes as hhmm>])\/"; the ms are UTC.
const DATE = /^\/Date\((-?\d+)(?:[+-]\d{4})?\)\/$/;
const LARGE = new Set(['Edm.Int64', 'Edm.Decimal']);

/**
 * Turns one v2 verbose-JSON record into the common shape: `/Date(ms)/` strings become `Date`s,
 * `__metadata` is dropped (its `etag` kept as `@odata.etag`, as v4 would send it), deferred navigation
 * links are dropped, and expanded collections (`{ results: [...] }`) become arrays.
 */
export function decodeV2Record(raw: unknown, ctx: DecodeContext): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const source = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const numbers = ctx.largeNumbers === 'number' ? ctx.entityType : undefined;
  for (const key in source) {
    const value = source[key];
    if (key === '__metadata') {
      const etag = (value as { etag?: unknown } | null)?.etag;
      if (typeof etag === 'string') out['@odata.etag'] = etag;
      continue;
    }
    if (typeof value === 'string') {
      if (value.charCodeAt(0) === 47 /* / */ && value.startsWith('/Date(')) {
        const m = DATE.exec(value);
        out[key] = m ? new Date(Number(m[1])) : value;
      } else if (numbers !== undefined && LARGE.has(numbers.properties.get(key)?.type ?? '')) {
        out[key] = Number(value);
      } else out[key] = value;
    } else if (typeof value === 'object' && value !== null) {
      if ('__deferred' in value) continue;
      if (Array.isArray(value)) out[key] = value.map((v) => decodeV2Record(v, { ...ctx, entityType: undefined }));
      else if (Array.isArray((value as { results?: unknown }).results)) {
        out[key] = ((value as { results: unknown[] }).results).map((v) => decodeV2Record(v, { ...ctx, entityType: undefined }));
      } else out[key] = decodeV2Record(value, { ...ctx, entityType: undefined });
    } else out[key] = value;
  }
  return out;
}
