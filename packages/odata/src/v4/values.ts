import type { ComplexTypeInfo, EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';
import type { DecodeContext } from '../protocol/types.js';
import { decodeV2Float } from '../v2/values.js';

type Structured = EntityTypeInfo | ComplexTypeInfo;

const FLOATS = new Set(['Edm.Double', 'Edm.Single']);
const FLOAT_LISTS = new Set(['Collection(Edm.Double)', 'Collection(Edm.Single)']);
const elementOf = (type: string): string => (type.startsWith('Collection(') ? type.slice(11, -1) : type);

/**
 * A `Edm.Double`/`Edm.Single` value as the table of EDM types says it reads: a number. OData JSON sends
 * the special values as the strings `"INF"`, `"-INF"` and `"NaN"`; a service may also send a number as a
 * string (`IEEE754Compatible=true`). Anything else that is no number is an error naming the property.
 */
function float(value: unknown, type: string, property: string): unknown {
  return typeof value === 'string' ? decodeV2Float(value, type, property) : value;
}

/**
 * One record (or complex value) decoded by its type: Double and Single strings become numbers ({@link float});
 * with `dates`, `Edm.DateTimeOffset` values become `Date`s. Complex values and expanded entities by `$metadata`.
 */
function decodeStructured(raw: unknown, type: Structured | undefined, md: ServiceMetadata | undefined, dates: boolean): unknown {
  if (type === undefined || typeof raw !== 'object' || raw === null) return raw;
  if (Array.isArray(raw)) return raw.map((r) => decodeStructured(r, type, md, dates));
  const out: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  for (const key in out) {
    const value = out[key];
    if (value === null || value === undefined) continue;
    const prop = type.properties.get(key);
    if (prop !== undefined) {
      const t = prop.type;
      if (FLOATS.has(t)) out[key] = float(value, t, key);
      else if (FLOAT_LISTS.has(t) && Array.isArray(value)) out[key] = value.map((v) => float(v, t.slice(11, -1), key));
      else if (dates && t === 'Edm.DateTimeOffset' && typeof value === 'string') out[key] = new Date(value);
      else if (dates && t === 'Collection(Edm.DateTimeOffset)' && Array.isArray(value)) out[key] = value.map((v) => (typeof v === 'string' ? new Date(v) : v));
      else if (typeof value === 'object') out[key] = decodeStructured(value, md?.complexTypes.get(elementOf(t)), md, dates);
      continue;
    }
    const nav = 'navigation' in type ? type.navigation.get(key) : undefined;
    if (nav?.type !== undefined && typeof value === 'object') out[key] = decodeStructured(value, md?.entityTypes.get(nav.type), md, dates);
  }
  return out;
}

/** Where a type's Doubles and Singles are: its own, its collections of them, and the complex and navigation properties that lead to some. */
interface FloatPlan {
  floats: Array<[name: string, type: string]>;
  lists: Array<[name: string, type: string]>;
  nested: Array<[name: string, type: Structured]>;
}
const plans = new WeakMap<Structured, FloatPlan>();

function planOf(type: Structured, md: ServiceMetadata | undefined): FloatPlan {
  let plan = plans.get(type);
  if (plan !== undefined) return plan;
  plan = { floats: [], lists: [], nested: [] };
  for (const p of type.properties.values()) {
    if (FLOATS.has(p.type)) plan.floats.push([p.name, p.type]);
    else if (FLOAT_LISTS.has(p.type)) plan.lists.push([p.name, elementOf(p.type)]);
    else {
      const complex = md?.complexTypes.get(elementOf(p.type));
      if (complex !== undefined && floatsIn(complex, md)) plan.nested.push([p.name, complex]);
    }
  }
  if ('navigation' in type) {
    for (const n of type.navigation.values()) {
      const target = n.type === undefined ? undefined : md?.entityTypes.get(n.type);
      if (target !== undefined && floatsIn(target, md)) plan.nested.push([n.name, target]);
    }
  }
  plans.set(type, plan);
  return plan;
}

/** Double and Single strings of a freshly parsed record (or array of them) made numbers, in place: only the properties that can hold one are looked at. */
function decodeFloats(raw: unknown, type: Structured, md: ServiceMetadata | undefined): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  if (Array.isArray(raw)) {
    for (let i = 0; i < raw.length; i++) raw[i] = decodeFloats(raw[i], type, md);
    return raw;
  }
  const record = raw as Record<string, unknown>;
  const plan = planOf(type, md);
  for (const [name, t] of plan.floats) {
    const value = record[name];
    if (typeof value === 'string') record[name] = decodeV2Float(value, t, name);
  }
  for (const [name, t] of plan.lists) {
    const value = record[name];
    if (Array.isArray(value)) record[name] = value.map((v) => float(v, t, name));
  }
  for (const [name, t] of plan.nested) {
    const value = record[name];
    if (typeof value === 'object' && value !== null) record[name] = decodeFloats(value, t, md);
  }
  return record;
}

/**
 * Decodes one v4 record: Double and Single properties sent as strings (`"INF"`, `"-INF"`, `"NaN"`, numbers
 * under `IEEE754Compatible`) become numbers, and under `dates: 'Date'` `Edm.DateTimeOffset` properties
 * become `Date`s; in complex values and expanded entities too, by `$metadata`. Used only where
 * {@link v4Decodes} says so: otherwise v4 records are handed out as parsed, with no per-record work.
 * Without `dates`, the record (freshly parsed) is changed in place.
 */
export function decodeV4Record(raw: unknown, ctx: DecodeContext): unknown {
  const type = ctx.entityType;
  if (type === undefined) return raw;
  return ctx.dates === 'Date' ? decodeStructured(raw, type, ctx.metadata, true) : decodeFloats(raw, type, ctx.metadata);
}

/** Root answers of {@link holdsFloats} (a search from that type, cycles cut). */
const floatsOf = new WeakMap<Structured, boolean>();

function holdsFloats(type: Structured, md: ServiceMetadata | undefined, seen: Set<Structured>): boolean {
  const known = floatsOf.get(type);
  if (known !== undefined) return known;
  if (seen.has(type)) return false;
  seen.add(type);
  for (const p of type.properties.values()) {
    if (FLOATS.has(p.type) || FLOAT_LISTS.has(p.type)) return true;
    const complex = md?.complexTypes.get(elementOf(p.type));
    if (complex !== undefined && holdsFloats(complex, md, seen)) return true;
  }
  if ('navigation' in type) {
    for (const n of type.navigation.values()) {
      const target = n.type === undefined ? undefined : md?.entityTypes.get(n.type);
      if (target !== undefined && holdsFloats(target, md, seen)) return true;
    }
  }
  return false;
}

/** Whether a structured type holds a Double or Single (itself, in a complex property or behind navigation), memoized. */
function floatsIn(type: Structured, md: ServiceMetadata | undefined): boolean {
  let known = floatsOf.get(type);
  if (known === undefined) floatsOf.set(type, (known = holdsFloats(type, md, new Set())));
  return known;
}

/**
 * Whether v4 records of `ctx.entityType` need {@link decodeV4Record}: under `dates: 'Date'`, or when the
 * type (with its complex properties and navigation targets) declares a Double or Single. Without
 * `$metadata` nothing tells a Double's `"NaN"` from a string's, and records are handed out as parsed.
 */
export function v4Decodes(ctx: Pick<DecodeContext, 'dates'> & Partial<Pick<DecodeContext, 'entityType' | 'metadata'>>): boolean {
  if (ctx.dates === 'Date') return true;
  return ctx.entityType !== undefined && floatsIn(ctx.entityType, ctx.metadata);
}

/** How records of `protocol` are decoded in `ctx`: its own decoder, v4's ({@link v4Decodes}), or none (as parsed). */
export function recordDecoder(
  protocol: { decodeRecord?(raw: unknown, ctx: DecodeContext): unknown },
  ctx: Pick<DecodeContext, 'dates'> & Partial<Pick<DecodeContext, 'entityType' | 'metadata'>>,
): ((raw: unknown, ctx: DecodeContext) => unknown) | undefined {
  return protocol.decodeRecord ?? (v4Decodes(ctx) ? decodeV4Record : undefined);
}
