import { ConfigError } from '@sluice/core';
import type { ComplexTypeInfo, EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import { toLiteral, TypedValue, type Literal } from '../query/literal.js';
import { derivedType, namedType } from './derived-type.js';

/** What encoding a request body needs: the protocol, the model when loaded, and the number mode. */
export interface EncodeContext {
  readonly protocol: ODataProtocol;
  readonly metadata: ServiceMetadata | undefined;
  /** v4: send Int64 and Decimal as strings (IEEE754Compatible=true). */
  readonly ieee754: boolean;
}

const COLLECTION = /^Collection\((.+)\)$/;
const RANGES: Record<string, readonly [number, number]> = {
  'Edm.Byte': [0, 255], 'Edm.SByte': [-128, 127], 'Edm.Int16': [-32768, 32767], 'Edm.Int32': [-2147483648, 2147483647],
};
/** Annotations a read leaves on an entity that a write must not send back. */
const READ_ANNOTATIONS = /^@odata\.(etag|context|id|editLink|readLink|metadataEtag|mediaEtag|mediaReadLink|mediaEditLink)$/;

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Date) return `Date ${Number.isNaN(value.getTime()) ? 'Invalid' : value.toISOString()}`;
  return Array.isArray(value) ? 'an array' : typeof value === 'object' && value !== null ? 'an object' : String(value);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date) && !(v instanceof TypedValue) && !(v instanceof Uint8Array);

/** A JavaScript value with no type from `$metadata`: its own type decides (Date, bigint, bytes, TypedValue). */
function encodeUntyped(value: unknown, ctx: EncodeContext, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new ConfigError(path, `cannot send ${value} without a Double property type`);
    return value;
  }
  if (value instanceof TypedValue || value instanceof Date || typeof value === 'bigint') return literalJson(toLiteral(value), ctx, path);
  if (value instanceof Uint8Array) return literalJson({ kind: 'binary', text: Buffer.from(value).toString('base64url') }, ctx, path);
  if (Array.isArray(value)) return value.map((v, i) => encodeUntyped(v, ctx, `${path}[${i}]`));
  if (isPlainObject(value)) return encodeProperties(value, undefined, ctx, path);
  throw new ConfigError(path, `cannot be sent: ${typeof value} is not a JSON value`);
}

function literalJson(literal: Literal, ctx: EncodeContext, _path: string): unknown {
  return ctx.protocol.write.jsonValue(literal, ctx.ieee754);
}

/** A value of a property or parameter of EDM type `type` (primitive, complex, or a collection of either). */
export function encodeValue(value: unknown, type: string | undefined, nullable: boolean, ctx: EncodeContext, path: string): unknown {
  if (value === null) {
    if (!nullable) throw new ConfigError(path, `is not nullable${type ? ` (${type})` : ''}`);
    return null;
  }
  if (type === undefined) return encodeUntyped(value, ctx, path);
  const element = COLLECTION.exec(type)?.[1];
  if (element !== undefined) {
    if (!Array.isArray(value)) throw new ConfigError(path, `expects ${type}, got ${describe(value)}`);
    return value.map((v, i) => encodeValue(v, element, true, ctx, `${path}[${i}]`));
  }
  const complex = ctx.metadata?.complexTypes.get(type);
  if (complex !== undefined) {
    if (!isPlainObject(value)) throw new ConfigError(path, `expects the complex type ${type}, got ${describe(value)}`);
    return encodeProperties(value, complex, ctx, path);
  }
  if (!type.startsWith('Edm.')) return encodeUntyped(value, ctx, path);
  if (type === 'Edm.String' && typeof value !== 'string' && !(value instanceof TypedValue)) {
    throw new ConfigError(path, `expects Edm.String, got ${describe(value)}`);
  }
  let literal: Literal;
  try {
    literal = toLiteral(value, type);
  } catch (cause) {
    if (cause instanceof ConfigError && !['Edm.Geography', 'Edm.Geometry', 'Edm.Stream'].some((t) => type.startsWith(t))) {
      throw new ConfigError(path, `expects ${type}, got ${describe(value)}`, { cause });
    }
    return encodeUntyped(value, ctx, path);
  }
  const range = RANGES[type];
  if (range !== undefined && (literal.kind === 'int64' || Number(literal.text) < range[0] || Number(literal.text) > range[1])) {
    throw new ConfigError(path, `expects ${type} (${range[0]}..${range[1]}), got ${describe(value)}`);
  }
  return literalJson(literal, ctx, path);
}

/**
 * The body of an entity (or complex value) for a create, update or deep insert: every property encoded
 * by its EDM type when `$metadata` is loaded (a wrong type is a ConfigError before anything is sent),
 * navigation properties holding entities (deep insert) encoded by their target type, read annotations
 * (`@odata.etag`, v2 `__metadata`) dropped, `@odata.type` and `Nav@odata.bind` kept. An entity naming a type
 * derived from the addressed one in `@odata.type` (v2 also `__metadata.type`) is checked and encoded by
 * that type; v2 sends the name as `__metadata.type`.
 */
export function encodeProperties(
  entity: Record<string, unknown>, type: EntityTypeInfo | ComplexTypeInfo | undefined, ctx: EncodeContext, path: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entity)) {
    if (value === undefined || name === '__metadata' || READ_ANNOTATIONS.test(name)) continue;
    const at = `${path}.${name}`;
    if (name.includes('@')) {
      out[name] = value;
      continue;
    }
    if (type === undefined) {
      out[name] = encodeUntyped(value, ctx, at);
      continue;
    }
    const prop = type.properties.get(name);
    if (prop !== undefined) {
      out[name] = encodeValue(value, prop.type, prop.nullable, ctx, at);
      continue;
    }
    const nav = 'navigation' in type ? type.navigation.get(name) : undefined;
    if (nav === undefined) throw new ConfigError(at, `is not a property of ${type.qualifiedName}`);
    const target = nav.type === undefined ? undefined : ctx.metadata?.entityTypes.get(nav.type);
    // Deep insert: related entities inline (OData 4.01 Part 1 section 11.4.2.2; v2 the same as an array).
    if (nav.collection) {
      if (!Array.isArray(value)) throw new ConfigError(at, `is a collection navigation: give an array of ${nav.type ?? 'entities'} to insert`);
      out[name] = value.map((v, i) => encodeEntityValue(v, target, ctx, `${at}[${i}]`));
    } else out[name] = value === null ? null : encodeEntityValue(value, target, ctx, at);
  }
  return out;
}

function encodeEntityValue(value: unknown, type: EntityTypeInfo | undefined, ctx: EncodeContext, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw new ConfigError(path, `expects an entity object, got ${describe(value)}`);
  const v2 = ctx.protocol.version === '2.0';
  const named = namedType(value, path, v2);
  // An instance of a derived type: its own properties are checked and encoded by it.
  const written = named === undefined || type === undefined || ctx.metadata === undefined ? type : derivedType(ctx.metadata, type, named);
  const out = encodeProperties(value, written, ctx, path);
  if (named !== undefined && v2) {
    // v2 names the type in `__metadata` (JSON verbose format); only a type other than the addressed one.
    delete out['@odata.type'];
    if (written === undefined || written.qualifiedName !== type?.qualifiedName) out['__metadata'] = { type: written?.qualifiedName ?? named.name };
  }
  return out;
}

/** The JSON body of an entity write, checked as {@link encodeProperties} does. */
export function encodeEntity(entity: unknown, type: EntityTypeInfo | undefined, ctx: EncodeContext, what: string): Record<string, unknown> {
  return encodeEntityValue(entity, type, ctx, what);
}
