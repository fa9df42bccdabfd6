import { odataFloatText } from '@sluice/odata';
import type { Replacer } from './special-floats.js';


/** Turns records into text: an opening, one piece per record, a closing. */
export interface RecordFormat {
  begin(): string;
  record(value: unknown): string;
  end(): string;
}

/** One JSON document per line (NDJSON / JSON Lines). */
export const ndjson: RecordFormat = {
  begin: () => '',
  record: (value) => `${JSON.stringify(value)}\n`,
  end: () => '',
};

/** {@link ndjson} with a replacer (see special-floats.ts); without one, `ndjson` itself. */
export function ndjsonWith(replacer: Replacer | undefined): RecordFormat {
  return replacer === undefined ? ndjson : { begin: () => '', record: (value) => `${JSON.stringify(value, replacer)}\n`, end: () => '' };
}

/** One JSON array, a record per line; an interrupted export leaves the array open, so parsers refuse it. */
export function jsonArray(replacer?: Replacer): RecordFormat {
  let first = true;
  return {
    begin: () => '[',
    record(value) {
      const text = `${first ? '\n' : ',\n'}${JSON.stringify(value, replacer)}`;
      first = false;
      return text;
    },
    end: () => '\n]\n',
  };
}

/** Text a spreadsheet may run as a formula (CSV injection): it starts with =, +, -, @, tab or CR. */
const FORMULA_START = /^[=+\-@\t\r]/;
/** A plain number, as Edm.Decimal and Edm.Int64 arrive in text (IEEE754Compatible), or a Double's `-INF`: never a formula. */
const NUMBER_TEXT = /^(?:[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?|-INF)$/;

/**
 * A CSV cell (RFC 4180 2.6-2.7): quoted when it holds a comma, quote, CR or LF; quotes doubled. With
 * `guard`, a string that could start a formula gets a leading `'` (OWASP); numbers, also those sent
 * as text (`"-12.50"`, a Double's `"-INF"`), are never changed. A Double's Infinity, -Infinity, NaN is
 * written `INF`, `-INF`, `NaN` as OData JSON spells them; nested values are JSON, with `replacer`.
 */
export function csvCell(value: unknown, guard = false, replacer?: Replacer): string {
  let text: string;
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') text = guard && FORMULA_START.test(value) && !NUMBER_TEXT.test(value) ? `'${value}` : value;
  else if (typeof value === 'number') text = odataFloatText(value);
  else if (typeof value === 'boolean' || typeof value === 'bigint') text = String(value);
  else if (value instanceof Date) text = value.toISOString();
  else text = JSON.stringify(value, replacer);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * The value at `path` (`Name`, `Address/City`, `Category/Name`) of a record. Through a to-many expansion
 * (`Products/Name`) it is the array of the related entities' values.
 */
export function valueAt(record: unknown, path: string): unknown {
  return valueAtParts(record, path.split('/'), 0);
}

function valueAtParts(current: unknown, parts: readonly string[], i: number): unknown {
  if (i === parts.length) return current;
  if (Array.isArray(current)) return current.map((item) => valueAtParts(item, parts, i));
  if (current === null || typeof current !== 'object') return undefined;
  return valueAtParts((current as Record<string, unknown>)[parts[i]!], parts, i + 1);
}

/**
 * CSV with a header row and CRLF line ends (RFC 4180 2.1, 2.3); nested values are written as JSON.
 * String cells that could run as a spreadsheet formula are guarded unless `raw` (see {@link csvCell}).
 */
export function csv(columns: readonly string[], raw = false, replacer?: Replacer): RecordFormat {
  return {
    begin: () => (columns.length ? csvLine(columns, raw) : ''),
    record: (value) => csvLine(columns.map((c) => valueAt(value, c)), raw, replacer),
    end: () => '',
  };
}

/** One CSV line of `cells` (see {@link csvCell}), CRLF-terminated. */
export function csvLine(cells: readonly unknown[], raw: boolean, replacer?: Replacer): string {
  return `${cells.map((c) => csvCell(c, !raw, replacer)).join(',')}\r\n`;
}

/** Columns when nothing declares them: the first record's own properties, annotations left out. */
export function columnsOf(record: unknown): string[] {
  if (record === null || typeof record !== 'object') return [];
  return Object.keys(record).filter((k) => !k.includes('@') && k !== '__metadata');
}
