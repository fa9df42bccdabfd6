import type { ODataVersion } from '../protocol/types.js';

/**
 * What a sink or a generator needs to know of a primitive value's kind: the column family it maps to.
 * `timestamp` is an instant (UTC), `date` a calendar date, `time` a time of day.
 */
export type EdmKind =
  | 'boolean' | 'integer' | 'decimal' | 'float' | 'string' | 'guid' | 'binary'
  | 'date' | 'timestamp' | 'time' | 'duration' | 'stream' | 'geo' | 'untyped';

/**
 * One EDM primitive type and how sluice gives its values, the same on v2 and v4 (a service's `/Date(ms)/`,
 * `PT13H45M10S` and `guid'...'` spellings never reach the caller).
 */
export interface EdmPrimitive {
  /** Qualified name, `Edm.Int64`. */
  readonly name: string;
  readonly kind: EdmKind;
  /** Width of integers and floats, in bits. */
  readonly bits?: number | undefined;
  /** Whether an integer type is signed. */
  readonly signed?: boolean | undefined;
  /** OData versions whose CSDL has the type. */
  readonly versions: readonly ODataVersion[];
  /**
   * TypeScript type of a decoded value: `default` under the default options, `largeNumbers` under
   * `largeNumbers: 'number'`, `dates` under `dates: 'Date'` (absent: the same as `default`).
   */
  readonly ts: { readonly default: string; readonly largeNumbers?: string | undefined; readonly dates?: string | undefined };
  /** The form of a decoded value, in one line. */
  readonly form: string;
}

const V2V4: readonly ODataVersion[] = ['2.0', '4.0'];
const V4: readonly ODataVersion[] = ['4.0'];
const V2: readonly ODataVersion[] = ['2.0'];
/** A GeoJSON object (RFC 7946), as OData JSON writes geography and geometry values. */
const GEO_TS = '{ type: string; [member: string]: unknown }';

function int(name: string, bits: number, signed: boolean): EdmPrimitive {
  return { name, kind: 'integer', bits, signed, versions: V2V4, ts: { default: 'number' }, form: `${signed ? 'signed' : 'unsigned'} ${bits}-bit integer as a number` };
}

const GEO_SHAPES = ['', 'Point', 'LineString', 'Polygon', 'MultiPoint', 'MultiLineString', 'MultiPolygon', 'Collection'];
const geo: EdmPrimitive[] = ['Geography', 'Geometry'].flatMap((family) => GEO_SHAPES.map((shape): EdmPrimitive => ({
  name: `Edm.${family}${shape}`, kind: 'geo', versions: V4, ts: { default: GEO_TS },
  form: `GeoJSON object (${shape === '' ? 'any shape' : shape}), ${family === 'Geography' ? 'round-earth' : 'flat-earth'} coordinates`,
})));

/**
 * Every EDM primitive type of OData v2 (CSDL 2.0) and v4 (CSDL 4.0/4.01), in one table: the kind a sink
 * maps it to, width and sign of numbers, the TypeScript type of the value sluice decodes and its form.
 * The README's "EDM types" table is this table.
 */
export const EDM_PRIMITIVES: readonly EdmPrimitive[] = [
  { name: 'Edm.Boolean', kind: 'boolean', versions: V2V4, ts: { default: 'boolean' }, form: '`true` or `false`' },
  int('Edm.Byte', 8, false),
  int('Edm.SByte', 8, true),
  int('Edm.Int16', 16, true),
  int('Edm.Int32', 32, true),
  {
    name: 'Edm.Int64', kind: 'integer', bits: 64, signed: true, versions: V2V4, ts: { default: 'string', largeNumbers: 'number' },
    form: 'decimal digits as a string (`"-9007199254740993"`); a number under `largeNumbers: \'number\'`',
  },
  {
    name: 'Edm.Decimal', kind: 'decimal', versions: V2V4, ts: { default: 'string', largeNumbers: 'number' },
    form: 'decimal number as a string (`"12.50"`), Precision/Scale from the property; a number under `largeNumbers: \'number\'`',
  },
  { name: 'Edm.Single', kind: 'float', bits: 32, versions: V2V4, ts: { default: 'number' }, form: 'IEEE 754 binary32 as a number (the strings `"INF"`, `"-INF"`, `"NaN"` and numbers sent as strings, v2\'s `"1.5E+2"` or v4\'s under `IEEE754Compatible`, too, by `$metadata`: without it they arrive as sent)' },
  { name: 'Edm.Double', kind: 'float', bits: 64, versions: V2V4, ts: { default: 'number' }, form: 'IEEE 754 binary64 as a number (the strings `"INF"`, `"-INF"`, `"NaN"` and numbers sent as strings, v2\'s `"1.5E+2"` or v4\'s under `IEEE754Compatible`, too, by `$metadata`: without it they arrive as sent)' },
  { name: 'Edm.String', kind: 'string', versions: V2V4, ts: { default: 'string' }, form: 'text' },
  { name: 'Edm.Guid', kind: 'guid', versions: V2V4, ts: { default: 'string' }, form: '`xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`, as the service writes it' },
  { name: 'Edm.Binary', kind: 'binary', versions: V2V4, ts: { default: 'string' }, form: 'the bytes as base64url (RFC 4648 section 5): v4\'s as the service writes it, v2\'s base64 converted (by `$metadata`), padding as sent' },
  { name: 'Edm.Date', kind: 'date', versions: V4, ts: { default: 'string' }, form: '`YYYY-MM-DD`' },
  {
    name: 'Edm.DateTimeOffset', kind: 'timestamp', versions: V2V4, ts: { default: 'string', dates: 'Date' },
    form: 'ISO 8601 date-time with `Z` or an offset (`2020-01-02T03:04:05Z`); a `Date` under `dates: \'Date\'`',
  },
  {
    name: 'Edm.DateTime', kind: 'timestamp', versions: V2, ts: { default: 'string', dates: 'Date' },
    form: 'ISO 8601 date-time in UTC (`2020-01-02T03:04:05.000Z`), `YYYY-MM-DD` with `sap:display-format="Date"`; a `Date` under `dates: \'Date\'`',
  },
  { name: 'Edm.TimeOfDay', kind: 'time', versions: V4, ts: { default: 'string' }, form: '`hh:mm:ss[.fffffff]`' },
  { name: 'Edm.Time', kind: 'time', versions: V2, ts: { default: 'string' }, form: '`hh:mm:ss[.fffffff]` (the service\'s `PT13H45M10S` read as a time of day)' },
  { name: 'Edm.Duration', kind: 'duration', versions: V4, ts: { default: 'string' }, form: 'ISO 8601 duration (`P1DT2H`)' },
  { name: 'Edm.Stream', kind: 'stream', versions: V4, ts: { default: 'unknown' }, form: 'not in the entity\'s JSON: read through its media link' },
  ...geo,
  { name: 'Edm.Untyped', kind: 'untyped', versions: V4, ts: { default: 'unknown' }, form: 'any JSON value (OData 4.01)' },
  { name: 'Edm.PrimitiveType', kind: 'untyped', versions: V4, ts: { default: 'unknown' }, form: 'any primitive value (abstract type)' },
];

const BY_NAME = new Map(EDM_PRIMITIVES.map((p) => [p.name, p]));

/**
 * The EDM primitive type named `name` (`Edm.Int64`, or `Int64`), or undefined for any other name.
 *
 * @example
 * ```ts
 * import { edmPrimitive } from '@sluice/odata'
 * edmPrimitive('Edm.Int64')?.ts.default // 'string'
 * ```
 */
export function edmPrimitive(name: string): EdmPrimitive | undefined {
  return BY_NAME.get(name.startsWith('Edm.') ? name : `Edm.${name}`);
}

/** Options that change the TypeScript type of decoded values (see {@link EdmPrimitive.ts}). */
export interface EdmValueOptions {
  largeNumbers?: 'string' | 'number' | undefined;
  dates?: 'string' | 'Date' | undefined;
}

/** The TypeScript type of a decoded `type` value under `options`, or undefined when `type` is no EDM primitive. */
export function edmTsType(name: string, options: EdmValueOptions = {}): string | undefined {
  const p = edmPrimitive(name);
  if (p === undefined) return undefined;
  if (options.largeNumbers === 'number' && p.ts.largeNumbers !== undefined) return p.ts.largeNumbers;
  if (options.dates === 'Date' && p.ts.dates !== undefined) return p.ts.dates;
  return p.ts.default;
}
