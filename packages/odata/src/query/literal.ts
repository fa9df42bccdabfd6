import { ConfigError } from '@sluice/core';
import { odataFloatText } from '../json-numbers.js';

/** The kinds of literal sluice writes into URLs; each protocol version spells them its own way. */
export type LiteralKind =
  | 'null' | 'boolean' | 'string' | 'number' | 'int32' | 'int64' | 'decimal' | 'double' | 'single' | 'guid'
  | 'instant' | 'datetime' | 'datetimeoffset' | 'date' | 'timeofday' | 'duration' | 'binary';

/** A validated literal: its kind and canonical text (unquoted, unescaped). */
export interface Literal {
  readonly kind: LiteralKind;
  readonly text: string;
}

/**
 * A value with an explicit EDM type, for when a JavaScript value alone is ambiguous (a GUID or an Int64
 * written as a string). Create it with the helpers {@link guid}, {@link int64}, {@link decimal} and so on.
 */
export class TypedValue {
  /** @internal */
  constructor(readonly kind: LiteralKind, readonly value: unknown) {}
}

/** Any value accepted where a literal goes: in `$filter`, keys and function parameters. */
export type LiteralValue = string | number | bigint | boolean | null | Date | TypedValue;

/** A GUID literal (`guid'…'` in v2, bare in v4). @example `f.eq('Guid', guid('0f8fad5b-d9cb-469f-a165-70867728950e'))` */
export const guid = (value: string): TypedValue => new TypedValue('guid', value);
/** An Int64 literal (`123L` in v2); accepts a bigint, a safe integer or a string of digits. */
export const int64 = (value: bigint | number | string): TypedValue => new TypedValue('int64', value);
/** A Decimal literal (`12.34M` in v2); a string keeps every digit. */
export const decimal = (value: string | number | bigint): TypedValue => new TypedValue('decimal', value);
/** A Double literal (`1.5d` in v2). */
export const double = (value: number | string): TypedValue => new TypedValue('double', value);
/** A Single literal (`1.5f` in v2). */
export const single = (value: number | string): TypedValue => new TypedValue('single', value);
/** An Edm.DateTime (v2, no offset: `datetime'2024-01-31T10:00:00'`); v4 writes it as a DateTimeOffset in UTC. */
export const datetime = (value: Date | string): TypedValue => new TypedValue('datetime', value);
/** An Edm.DateTimeOffset (`datetimeoffset'…'` in v2, bare ISO 8601 in v4). */
export const datetimeoffset = (value: Date | string): TypedValue => new TypedValue('datetimeoffset', value);
/** An Edm.Date (`2024-01-31`), v4. */
export const date = (value: Date | string): TypedValue => new TypedValue('date', value);
/** An Edm.TimeOfDay (`13:45:00`), v4; in v2 a `time'PT13H45M'`. */
export const timeOfDay = (value: string): TypedValue => new TypedValue('timeofday', value);
/** An Edm.Duration (ISO 8601 `P1DT2H`): `duration'…'` in v4, `time'…'` in v2. */
export const duration = (value: string): TypedValue => new TypedValue('duration', value);
/**
 * An Edm.Binary from bytes, or from their base64url or standard base64 text (a read's form, padding optional).
 */
export const binary = (value: Uint8Array | string): TypedValue => new TypedValue('binary', value);
/** A value forced to be a string literal (even for a property that metadata says is numeric). */
export const str = (value: string): TypedValue => new TypedValue('string', value);

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?\d+(\.\d+)?$/;
const DOUBLE = /^([+-]?\d+(\.\d+)?([eE][+-]?\d+)?|NaN|-?INF)$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?)(Z|[+-]\d{2}:\d{2})?$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}(:\d{2}(\.\d{1,12})?)?$/;
const DURATION = /^-?P(\d+D)?(T(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/;
/** base64url (RFC 4648 section 5) or standard base64 (section 4), one alphabet, padding optional. */
const BASE64 = /^(?:[A-Za-z0-9_-]*|[A-Za-z0-9+/]*)={0,2}$/;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function bad(value: unknown, as: string): ConfigError {
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 60)) : typeof value === 'bigint' ? `${value}n` : String(value);
  return new ConfigError('literal', `${shown} is not a valid ${as}`);
}

/** The bytes of base64 or base64url text as canonical base64url (no padding); undefined for other text. */
function base64Text(value: string): string | undefined {
  if (!BASE64.test(value)) return undefined;
  const padded = value.endsWith('=');
  if (padded ? value.length % 4 !== 0 : value.length % 4 === 1) return undefined;
  return Buffer.from(value, 'base64').toString('base64url');
}

function numberText(value: number, as: string): string {
  if (!Number.isFinite(value)) return odataFloatText(value);
  const text = String(value);
  if (!DOUBLE.test(text)) throw bad(value, as);
  return text;
}

function dateText(value: Date | string, as: string, pattern: RegExp): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw bad(value, as);
    return value.toISOString();
  }
  if (typeof value !== 'string' || !pattern.test(value)) throw bad(value, as);
  return value;
}

/** Validates `value` as a literal of `kind`, giving its canonical text; throws a ConfigError otherwise. */
export function toLiteralOfKind(kind: LiteralKind, value: unknown): Literal {
  switch (kind) {
    case 'null':
      return { kind, text: 'null' };
    case 'string':
      if (typeof value === 'string') return { kind, text: wellFormed(value) };
      if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return { kind, text: String(value) };
      throw bad(value, 'string');
    case 'boolean':
      if (typeof value === 'boolean') return { kind, text: String(value) };
      if (value === 'true' || value === 'false') return { kind, text: value };
      throw bad(value, 'boolean');
    case 'int32':
    case 'int64': {
      const text = typeof value === 'bigint' ? value.toString()
        : typeof value === 'number' && Number.isSafeInteger(value) ? String(value)
          : typeof value === 'string' && INTEGER.test(value) ? value : undefined;
      if (text === undefined) throw bad(value, kind === 'int32' ? 'Int32' : 'Int64');
      if (kind === 'int32' && (Number(text) < INT32_MIN || Number(text) > INT32_MAX)) return { kind: 'int64', text };
      return { kind, text };
    }
    case 'decimal': {
      const text = typeof value === 'bigint' ? value.toString()
        : typeof value === 'number' && Number.isFinite(value) ? numberText(value, 'Decimal')
          : typeof value === 'string' && DECIMAL.test(value) ? value : undefined;
      if (text === undefined || !DOUBLE.test(text)) throw bad(value, 'Decimal');
      return { kind, text };
    }
    case 'number':
    case 'double':
    case 'single': {
      if (typeof value === 'number') return { kind, text: numberText(value, 'Double') };
      if (typeof value === 'string' && DOUBLE.test(value)) return { kind, text: value };
      throw bad(value, 'Double');
    }
    case 'guid':
      if (typeof value === 'string' && GUID.test(value)) return { kind, text: value.toLowerCase() };
      throw bad(value, 'GUID');
    case 'instant':
    case 'datetime':
    case 'datetimeoffset':
      return { kind, text: dateText(value as Date | string, kind === 'datetime' ? 'DateTime' : 'DateTimeOffset', DATETIME) };
    case 'date':
      if (value instanceof Date) return { kind, text: dateText(value, 'Date', DATE).slice(0, 10) };
      return { kind, text: dateText(value as string, 'Date', DATE) };
    case 'timeofday':
      if (typeof value === 'string' && TIME.test(value)) return { kind, text: value };
      throw bad(value, 'TimeOfDay');
    case 'duration':
      if (typeof value === 'string' && DURATION.test(value) && value !== 'P' && !value.endsWith('T')) return { kind, text: value };
      throw bad(value, 'Duration');
    case 'binary':
      if (value instanceof Uint8Array) return { kind, text: Buffer.from(value).toString('base64url') };
      if (typeof value === 'string') {
        const text = base64Text(value);
        if (text !== undefined) return { kind, text };
      }
      throw bad(value, 'Binary (bytes, or their base64url or base64 text)');
  }
}

const EDM_KINDS: Record<string, LiteralKind> = {
  'Edm.String': 'string', 'Edm.Boolean': 'boolean', 'Edm.Byte': 'int32', 'Edm.SByte': 'int32', 'Edm.Int16': 'int32',
  'Edm.Int32': 'int32', 'Edm.Int64': 'int64', 'Edm.Decimal': 'decimal', 'Edm.Double': 'double', 'Edm.Single': 'single',
  'Edm.Guid': 'guid', 'Edm.DateTime': 'datetime', 'Edm.DateTimeOffset': 'datetimeoffset', 'Edm.Date': 'date',
  'Edm.TimeOfDay': 'timeofday', 'Edm.Time': 'duration', 'Edm.Duration': 'duration', 'Edm.Binary': 'binary',
};

/**
 * Turns a caller's value into a validated literal. A {@link TypedValue} says its own kind; otherwise the
 * EDM type from `$metadata` (when known) decides, and failing that the JavaScript type: string, integer
 * number (Int32), other numbers (written as JavaScript prints them), bigint (Int64), boolean, null, Date
 * (a DateTimeOffset in v4, an Edm.DateTime in v2).
 */
/**
 * Refuses a string with a lone UTF-16 surrogate: it has no UTF-8 form, so it cannot be percent-encoded
 * into a URL (encodeURIComponent would throw a URIError).
 */
export function wellFormed(text: string, what = 'string literal'): string {
  // With the u flag a surrogate pair is one code point, so \p{Cs} matches lone surrogates only.
  const at = text.search(/\p{Cs}/u);
  if (at >= 0) throw new ConfigError(what, `contains a lone UTF-16 surrogate (at index ${at}): it cannot be encoded in a URL`);
  return text;
}

/**
 * {@link toLiteral} for a named value: a ConfigError names `what` (`parameter Count`, `key property ID`,
 * `filter value of Qty`) instead of `literal`. @internal
 */
export function namedLiteral(value: unknown, edmType: string | undefined, what: string): Literal {
  try {
    return toLiteral(value, edmType);
  } catch (error) {
    if (!(error instanceof ConfigError) || error.option !== 'literal') throw error;
    const named = new ConfigError(what, error.message.slice(error.option.length + 1), { cause: error });
    named.message = `${what}: ${error.message.slice(error.option.length + 1)}`;
    throw named;
  }
}

export function toLiteral(value: unknown, edmType?: string): Literal {
  if (value instanceof TypedValue) return toLiteralOfKind(value.kind, value.value);
  if (value === null) return { kind: 'null', text: 'null' };
  const fromMetadata = edmType === undefined ? undefined : EDM_KINDS[edmType];
  if (fromMetadata !== undefined) {
    // Numbers stay numbers on a Double property; strings on numeric properties must be numeric.
    if (fromMetadata === 'string' && typeof value !== 'string') return toLiteral(value);
    return toLiteralOfKind(fromMetadata, value);
  }
  switch (typeof value) {
    case 'string': return { kind: 'string', text: wellFormed(value) };
    case 'boolean': return { kind: 'boolean', text: String(value) };
    case 'bigint': return { kind: 'int64', text: value.toString() };
    case 'number':
      // An untyped number is written as JavaScript prints it, without a type suffix.
      return Number.isSafeInteger(value) ? toLiteralOfKind('int32', value) : toLiteralOfKind('number', value);
    default:
      // An untyped Date: v4 writes a DateTimeOffset, v2 an Edm.DateTime (the type v2 services use).
      if (value instanceof Date) return toLiteralOfKind('instant', value);
      throw new ConfigError('literal', `cannot write a ${value === undefined ? 'undefined' : typeof value} value into an OData URL`);
  }
}
