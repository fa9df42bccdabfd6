import { odataFloatValue } from '../json-numbers.js';
import type { ComplexTypeInfo, EntityTypeInfo, PropertyInfo } from '../metadata/model.js';
import type { DecodeContext } from '../protocol/types.js';
import { v2Control } from '../read/control.js';
import { MAX_INSTANT_MS, utcDay, utcText } from './utc-text.js';

// OData v2 JSON verbose ([MS-ODATA] 2.2.6.3.1): "\/Date(<ms since 1970, UTC>[+|-<offset>])\/".
const DATE = /^\/Date\((-?\d+)(?:([+-])(\d{4}))?\)\/$/;
// v2 Edm.Time is written as an xsd:duration of at most a day ([MS-ODATA] 2.2.6.3.1): PT13H45M10.5S.
const TIME = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(\.\d+)?S)?$/;
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

/**
 * ISO 8601 text of a UTC instant as v4 would write it: `Z` for UTC, else the local time with its offset;
 * milliseconds when the property has a precision (or the value has them), none at precision 0.
 */
function isoText(ms: number, minutes: number, precision: number | undefined): string {
  const fraction = precision === undefined ? true : precision > 0 || ms % 1000 !== 0;
  const local = utcText(ms + minutes * 60_000);
  if (fraction && minutes === 0) return local;
  const stamp = fraction ? local.slice(0, -1) : local.slice(0, 19);
  if (minutes === 0) return `${stamp}Z`;
  const abs = Math.abs(minutes);
  return `${stamp}${minutes < 0 ? '-' : '+'}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * Decodes a `/Date(...)/` string the way the table of EDM types says (see `EDM_PRIMITIVES`): ISO 8601
 * text, `Z` or the value's offset kept (`2020-01-01T02:00:01.000+01:00`); `YYYY-MM-DD` for a property
 * with `sap:display-format="Date"` (`10000-01-01`, `-0001-06-15` outside the years 0000-9999, as v4 writes an Edm.Date);
 * a `Date` when `dates` is `'Date'`. A value outside the range of instants (years -271821 to 275760) is a `TypeError`
 * naming the property. Anything else is returned as it is.
 */
export function decodeV2Date(value: string, property?: PropertyInfo, dates?: 'string' | 'Date'): Date | string {
  let ms = plainDateMs(value);
  let minutes = 0;
  if (ms === undefined) {
    const m = DATE.exec(value);
    if (!m) return value;
    ms = Number(m[1]);
    if (m[2] !== undefined) minutes = offsetMinutes(m[2], m[3]!);
  }
  // Outside the range of instants there is no Date and no text of one (nor of the local time the offset gives).
  if (!(Math.abs(ms) <= MAX_INSTANT_MS)) throw outOfRange(value, property);
  if (property?.displayFormat === 'Date') return utcDay(ms);
  if (dates === 'Date') return new Date(ms);
  if (!(Math.abs(ms + minutes * 60_000) <= MAX_INSTANT_MS)) throw outOfRange(value, property);
  return isoText(ms, minutes, property === undefined ? undefined : property.precision ?? 0);
}

/** A `/Date(...)/` beyond the range of instants, as an error naming the property (a read fails that record with a `RecordDecodeError`). */
function outOfRange(value: string, property: PropertyInfo | undefined): TypeError {
  const what = property === undefined ? 'a /Date(...)/ value' : `${property.type} property ${property.name}`;
  return new TypeError(`${what}: ${JSON.stringify(value.slice(0, 40))} is outside the range of instants (years -271821 to 275760)`);
}

/**
 * The milliseconds of the usual form, `/Date(<1 to 15 digits>)/` (no sign, no offset), read without the regular
 * expression; undefined for anything else, which the expression then reads.
 */
function plainDateMs(value: string): number | undefined {
  const end = value.length - 2;
  // '/Date(' is 6 characters, ')/' 2; callers checked the start.
  if (end < 7 || end > 21 || value.charCodeAt(end) !== 41 /* ) */ || value.charCodeAt(end + 1) !== 47 /* / */ || !value.startsWith('/Date(')) return undefined;
  let ms = 0;
  for (let i = 6; i < end; i++) {
    const digit = value.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    ms = ms * 10 + digit;
  }
  return ms;
}

/** A v2 `Edm.Time` (`PT13H45M10.5S`) as a time of day, `13:45:10.5`; anything else as it is. */
export function decodeV2Time(value: string): string {
  const m = TIME.exec(value);
  if (!m) return value;
  const two = (n: string | undefined): string => String(Number(n ?? 0)).padStart(2, '0');
  return `${two(m[1])}:${two(m[2])}:${two(m[3])}${m[4] ?? ''}`;
}

// What [MS-ODATA] 2.2.6.3.1 allows for a Double or Single written as a JSON string: a decimal with an
// optional exponent (SAP gateways write `"1.5E+2"`), and the special values.

/**
 * A v2 `Edm.Double` or `Edm.Single` written as a string (`"1.5E+2"`, `"INF"`, `"-INF"`, `"NaN"`) as the
 * number the table of EDM types says it reads as ({@link odataFloatValue}). Any other text is an error naming
 * the property (the record then arrives as a `RecordDecodeError` item with its text).
 */
export function decodeV2Float(value: string, type: string, property: string): number {
  const n = odataFloatValue(value);
  if (n === undefined) throw new TypeError(`${type} property ${property}: ${JSON.stringify(value.slice(0, 40))} is not a number`);
  return n;
}

/**
 * An operation's result of return type `Edm.Double` or `Edm.Single` (or a collection of them) as numbers, as
 * the table of EDM types says (`"INF"`, `"NaN"`, `"1.5E+2"` sent as strings, v2 and v4 alike); any other
 * result as it is.
 */
export function floatResult(value: unknown, operation: string, returnType: string | undefined): unknown {
  if (returnType === undefined) return value;
  const many = returnType.startsWith('Collection(');
  const type = many ? returnType.slice(11, -1) : returnType;
  if (type !== 'Edm.Double' && type !== 'Edm.Single') return value;
  const one = (v: unknown): unknown => (typeof v === 'string' ? decodeV2Float(v, type, `(result of ${operation})`) : v);
  return many ? (Array.isArray(value) ? value.map(one) : value) : one(value);
}

/**
 * v2 `Edm.Binary` (standard base64, RFC 4648 section 4) as v4 writes it: base64url (section 5), `+` and `/`
 * as `-` and `_`, padding kept as the service wrote it (SAP CAP's v4 service pads too).
 */
export function decodeV2Binary(value: string): string {
  return value.replace(/[+/]/g, (c) => (c === '+' ? '-' : '_'));
}

/** A string value of a property `$metadata` declares as `type`, in the form of the table of EDM types. */
function decodeV2String(value: string, type: string, property: string, largeNumbers: boolean): unknown {
  switch (type) {
    case 'Edm.Time': return decodeV2Time(value);
    case 'Edm.Double':
    case 'Edm.Single': return decodeV2Float(value, type, property);
    case 'Edm.Binary': return decodeV2Binary(value);
    case 'Edm.Int64':
    case 'Edm.Decimal': return largeNumbers ? Number(value) : value;
    default: return value;
  }
}

/**
 * Turns one v2 verbose-JSON record into the common shape: `/Date(...)/` strings of `Edm.DateTime` and
 * `Edm.DateTimeOffset` properties are decoded (see {@link decodeV2Date}); with `$metadata` known, `Edm.Time`
 * durations become times of day, Doubles and Singles written as strings numbers ({@link decodeV2Float}) and
 * base64 Binary values base64url ({@link decodeV2Binary}), and other types (an `Edm.String` that happens
 * to look like a date) are left alone; without it every `/Date(...)/` string is decoded and nothing else. `__metadata` is dropped (its `etag`
 * kept as `@odata.etag`, a derived `type` as `@odata.type`, as v4 would send them: {@link v2Control}), deferred navigation links are dropped, and expanded
 * collections (`{ results: [...] }`) become arrays.
 */
export function decodeV2Record(raw: unknown, ctx: DecodeContext): unknown {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
  const source = raw as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const type = ctx.entityType;
  const largeNumbers = ctx.largeNumbers === 'number';
  for (const key in source) {
    const value = source[key];
    if (key === '__metadata') {
      v2Control(value, type?.qualifiedName, out);
      continue;
    }
    if (typeof value === 'string') {
      const first = value.charCodeAt(0);
      if (first === 47 /* / */ && value.startsWith('/Date(')) {
        const declared = type?.properties.get(key);
        out[key] = declared === undefined || DATE_TYPES.has(declared.type) ? decodeV2Date(value, declared, ctx.dates) : value;
      } else if (type !== undefined) {
        const declared = type.properties.get(key)?.type;
        out[key] = declared === undefined ? value : decodeV2String(value, declared, key, largeNumbers);
      } else out[key] = value;
    } else if (typeof value === 'object' && value !== null) {
      if ('__deferred' in value) continue;
      const inner = { ...ctx, entityType: innerType(ctx, key) };
      if (Array.isArray(value)) out[key] = value.map((v) => decodeV2Record(v, inner));
      else if (Array.isArray((value as { results?: unknown }).results)) {
        out[key] = ((value as { results: unknown[] }).results).map((v) => decodeV2Record(v, inner));
      } else out[key] = decodeV2Record(value, inner);
    } else out[key] = value;
  }
  return out;
}

/** A complex type seen as a structured type without key or navigation, so that its values decode as an entity's do. */
const complexViews = new WeakMap<ComplexTypeInfo, EntityTypeInfo>();

/** The type of an object value under `key`: an expanded navigation property's target, or a complex property's type, when `$metadata` says. */
function innerType(ctx: DecodeContext, key: string): DecodeContext['entityType'] {
  const type = ctx.entityType;
  const target = type?.navigation.get(key)?.type;
  if (target !== undefined) return ctx.metadata?.entityTypes.get(target);
  const declared = type?.properties.get(key)?.type;
  const complex = declared === undefined ? undefined : ctx.metadata?.complexTypes.get(declared);
  return complex === undefined ? undefined : complexAsEntity(complex);
}

/** A complex type seen as a structured type without key or navigation (memoized), so that its values decode as an entity's do. */
export function complexAsEntity(complex: ComplexTypeInfo): EntityTypeInfo {
  let view = complexViews.get(complex);
  if (view === undefined) complexViews.set(complex, (view = { ...complex, key: [], navigation: new Map() }));
  return view;
}
