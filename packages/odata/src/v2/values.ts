import type { DecodeContext } from '../protocol/types.js';

// OData v2 JSON verbose ([MS-ODATA] 2.2.6.3.1): "\/Date(<ms since 1970, UTC>[+|-<offset>])\/".
const DATE = /^\/Date\((-?\d+)(?:([+-])(\d{4}))?\)\/$/;
const LARGE = new Set(['Edm.Int64', 'Edm.Decimal']);
const DATE_TYPES = new Set(['Edm.DateTime', 'Edm.DateTimeOffset']);

/**
 * The offset of a `/Date(ms+offset)/` value in minutes. [MS-ODATA] writes minutes (`+0060`); JSON.NET
 * and some gateways write hhmm (`+0100`). Minutes are assumed unless they are no whole quarter hour and
 * the hhmm reading is (`+0100`, `-0230`).
 */
function offsetMinutes(sign: string, digits: string): number {
  const asMinutes = Number(digits);
  const hh = Number(digits.slice(0, 2));
  const mm = Number(digits.slice(2));
  const asHhmm = mm < 60 ? hh * 60 + mm : -1;
  const minutes = asMinutes % 15 !== 0 && asHhmm >= 0 && asHhmm % 15 === 0 ? asHhmm : asMinutes;
  return sign === '-' ? -minutes : minutes;
}

/** An ISO 8601 date-time with the given offset for a UTC instant (`2020-01-01T02:00:00.000+01:00`). */
function isoWithOffset(ms: number, minutes: number): string {
  const local = new Date(ms + minutes * 60_000).toISOString().slice(0, -1);
  const abs = Math.abs(minutes);
  const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local}${minutes < 0 ? '-' : '+'}${hhmm}`;
}

/**
 * Decodes a `/Date(...)/` string: a `Date` for a plain instant; an ISO string that keeps the offset when
 * the value carries one (a `Date` could not). Anything else is returned as it is.
 */
export function decodeV2Date(value: string): Date | string {
  const m = DATE.exec(value);
  if (!m) return value;
  const ms = Number(m[1]);
  return m[2] === undefined ? new Date(ms) : isoWithOffset(ms, offsetMinutes(m[2], m[3]!));
}

/**
 * Turns one v2 verbose-JSON record into the common shape: `/Date(...)/` strings of `Edm.DateTime` and
 * `Edm.DateTimeOffset` properties are decoded (see {@link decodeV2Date}); with `$metadata` known, other
 * types (an `Edm.String` that happens to look like a date) are left alone, without it every such string
 * is decoded. `__metadata` is dropped (its `etag` kept as `@odata.etag`, as v4 would send it), deferred
 * navigation links are dropped, and expanded collections (`{ results: [...] }`) become arrays.
 */
export function decodeV2Record(raw: unknown, ctx: DecodeContext): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const source = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const type = ctx.entityType;
  const numbers = ctx.largeNumbers === 'number' ? type : undefined;
  for (const key in source) {
    const value = source[key];
    if (key === '__metadata') {
      const etag = (value as { etag?: unknown } | null)?.etag;
      if (typeof etag === 'string') out['@odata.etag'] = etag;
      continue;
    }
    if (typeof value === 'string') {
      if (value.charCodeAt(0) === 47 /* / */ && value.startsWith('/Date(')) {
        const declared = type?.properties.get(key)?.type;
        out[key] = declared === undefined || DATE_TYPES.has(declared) ? decodeV2Date(value) : value;
      } else if (numbers !== undefined && LARGE.has(numbers.properties.get(key)?.type ?? '')) {
        out[key] = Number(value);
      } else out[key] = value;
    } else if (typeof value === 'object' && value !== null) {
      if ('__deferred' in value) continue;
      const inner = { ...ctx, entityType: navigationTarget(ctx, key) };
      if (Array.isArray(value)) out[key] = value.map((v) => decodeV2Record(v, inner));
      else if (Array.isArray((value as { results?: unknown }).results)) {
        out[key] = ((value as { results: unknown[] }).results).map((v) => decodeV2Record(v, inner));
      } else out[key] = decodeV2Record(value, inner);
    } else out[key] = value;
  }
  return out;
}

/** The entity type an expanded navigation property leads to, when `$metadata` says. */
function navigationTarget(ctx: DecodeContext, key: string): DecodeContext['entityType'] {
  const target = ctx.entityType?.navigation.get(key)?.type;
  return target === undefined ? undefined : ctx.metadata?.entityTypes.get(target);
}
