import type { ComplexTypeInfo, EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';
import type { DecodeContext } from '../protocol/types.js';

type Structured = EntityTypeInfo | ComplexTypeInfo;

/** `Date` objects for the `Edm.DateTimeOffset` values of one record (v4 sends ISO text; `dates: 'Date'`). */
function withDates(raw: unknown, type: Structured | undefined, md: ServiceMetadata | undefined): unknown {
  if (type === undefined || typeof raw !== 'object' || raw === null) return raw;
  if (Array.isArray(raw)) return raw.map((r) => withDates(r, type, md));
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const key in out) {
    const value = out[key];
    if (value === null || value === undefined) continue;
    const prop = type.properties.get(key);
    if (prop !== undefined) {
      const t = prop.type;
      if (t === 'Edm.DateTimeOffset' && typeof value === 'string') out[key] = new Date(value);
      else if (t === 'Collection(Edm.DateTimeOffset)' && Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'string' ? new Date(v) : v));
      else if (typeof value === 'object') {
        const element = t.startsWith('Collection(') ? t.slice(11, -1) : t;
        out[key] = withDates(value, md?.complexTypes.get(element), md);
      }
      continue;
    }
    const nav = 'navigation' in type ? type.navigation.get(key) : undefined;
    if (nav?.type !== undefined && typeof value === 'object') out[key] = withDates(value, md?.entityTypes.get(nav.type), md);
  }
  return out;
}

/**
 * Decodes one v4 record under `dates: 'Date'`: `Edm.DateTimeOffset` properties (in complex values and
 * expanded entities too, by `$metadata`) become `Date`s. Only used when that option is on: by default v4
 * records are handed out as parsed, with no per-record work.
 */
export function decodeV4Record(raw: unknown, ctx: DecodeContext): unknown {
  return withDates(raw, ctx.entityType, ctx.metadata);
}

/** How records of `protocol` are decoded under `dates`: its own decoder, v4's dates decoder, or none (as parsed). */
export function recordDecoder(
  protocol: { decodeRecord?(raw: unknown, ctx: DecodeContext): unknown }, dates: 'string' | 'Date' | undefined,
): ((raw: unknown, ctx: DecodeContext) => unknown) | undefined {
  return protocol.decodeRecord ?? (dates === 'Date' ? decodeV4Record : undefined);
}
