// Column types and value conversion of the SQL targets (the README's "SQL types" table). SQLite tables are
// STRICT, so a value of the wrong type is refused rather than stored under another type.
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import {
  bad, binaryBytes, booleanValue, decimalText, float, guidText, inInt64, intValue, int64, jsonColumnText, single, wellFormedText, unscaledDecimal,
} from '../values.js';
import { dateText, epochNanos, inUnit, isoUTC, timeNanos, timeText } from '../temporal.js';
import { isPlainDateTime } from '../calendar.js';

/** The SQL dialects `sluice sync` writes. */
export type Dialect = 'sqlite' | 'postgres';

/** A quoted SQL identifier (`"Order ""A"""`). */
export function ident(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** PostgreSQL keeps at most microseconds: the fractional digits of a timestamp or time column there. */
function pgDigits(column: Column): number {
  return Math.min(column.precision ?? 6, 6);
}

function exactDecimal(column: Column): boolean {
  const { precision, scale } = column;
  return precision !== undefined && Number.isInteger(precision) && precision > 0 && scale !== undefined && Number.isInteger(scale) && scale >= 0 && scale <= precision;
}

/** The declared SQL type of a column. */
export function sqlType(dialect: Dialect, column: Column): string {
  if (dialect === 'sqlite') {
    switch (column.kind) {
      case 'boolean': case 'int': case 'int64': return 'INTEGER';
      case 'double': case 'single': return 'REAL';
      case 'binary': return 'BLOB';
      default: return 'TEXT';
    }
  }
  switch (column.kind) {
    case 'boolean': return 'boolean';
    case 'int': return (column.bits ?? 32) <= 16 ? 'smallint' : 'integer';
    case 'int64': return 'bigint';
    case 'decimal': return exactDecimal(column) ? `numeric(${column.precision},${column.scale})` : 'numeric';
    case 'double': return 'double precision';
    case 'single': return 'real';
    case 'date': return 'date';
    case 'timestamp': return `timestamp(${pgDigits(column)}) with time zone`;
    case 'time': return `time(${pgDigits(column)}) without time zone`;
    case 'guid': return 'uuid';
    case 'binary': return 'bytea';
    case 'json': return 'jsonb';
    case 'duration': case 'string': return 'text';
  }
}

/** An instant already in the form {@link isoUTC} writes (UTC, no trailing zero digit): kept as it is. */
const CANONICAL_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{0,8}[1-9])?Z$/;
/** `\u0000` in JSON text (after an even number of backslashes: not an escaped `\`). */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;
/** Integer text that a double holds exactly (at most 15 digits). */
const SMALL_INTEGER = /^-?\d{1,15}$/;

/**
 * Dates and instants in a SQL table are texts of years 0001 to 9999 (`YYYY-MM-DD...`): PostgreSQL reads no
 * ISO 8601 year 0 (1 BC), no signed six-digit year, and a SQLite table must read the same as a PostgreSQL one.
 */
function inSqlYears(column: Column, value: unknown, text: string): string {
  const c = text.charCodeAt(0);
  if (c < 48 || c > 57 || text.charCodeAt(4) !== 45 || text.startsWith('0000')) throw bad(column, value, 'is outside the years 0001 to 9999 that a SQL date or timestamp column holds here');
  return text;
}

/** Turns a decoded value (not null) into what the dialect's driver binds for the column. */
export function sqlValue(dialect: Dialect, column: Column): (value: unknown) => unknown {
  const pg = dialect === 'postgres';
  switch (column.kind) {
    case 'boolean': return (v) => {
      const b = booleanValue(column, v);
      return pg ? b : b ? 1 : 0;
    };
    case 'int': return intValue(column);
    case 'int64': return pg
      ? (v) => (typeof v === 'string' && SMALL_INTEGER.test(v) ? v : inInt64(column, v, int64(column, v)).toString())
      : (v) => (typeof v === 'string' && SMALL_INTEGER.test(v) ? Number(v) : inInt64(column, v, int64(column, v)));
    case 'decimal': {
      if (!exactDecimal(column)) return (v) => decimalText(column, v);
      // Checked against the precision and scale, kept as the exact text; plain text within both needs no parsing.
      const scale = column.scale!;
      const whole = column.precision! - scale;
      const int = whole === 0 ? '0' : `(?:0|[1-9]\\d{0,${whole - 1}})`;
      const plain = new RegExp(scale === 0 ? `^-?${int}$` : `^-?${int}(?:\\.\\d{1,${scale}})?$`);
      const limit = 10n ** BigInt(column.precision!);
      return (v) => {
        if (typeof v === 'string' && plain.test(v)) return v;
        const unscaled = unscaledDecimal(column, v, scale);
        if (unscaled >= limit || unscaled <= -limit) throw bad(column, v, `has more than ${column.precision} digits (${whole} before the point)`);
        return decimalText(column, v);
      };
    }
    // PostgreSQL reads 'Infinity', '-Infinity' and 'NaN' (COPY text and parameters alike). SQLite keeps
    // infinities in a REAL but reads NaN back as NULL: refused rather than lost.
    case 'double': case 'single': {
      const read = column.kind === 'single' ? single : float;
      // PostgreSQL's real refuses a text that float32 rounds to zero (1e-50); rounded here, as a Parquet FLOAT rounds it.
      const round = column.kind === 'single' ? Math.fround : (n: number): number => n;
      return pg ? (v) => {
        const n = read(column, v);
        return Number.isFinite(n) ? round(n) : String(n);
      } : (v) => {
        const n = read(column, v);
        if (n !== n) throw new SinkError(`column ${column.name} (${column.edmType}): NaN cannot be stored in SQLite (a REAL column reads it back as NULL); sync into PostgreSQL, or export to Parquet, which keep it`, 'value');
        return n;
      };
    }
    case 'date': return (v) => inSqlYears(column, v, dateText(column, v));
    case 'timestamp': {
      const per = pg ? 10n ** BigInt(9 - pgDigits(column)) : 1n;
      // The longest canonical text the column holds as it is: `...:SSZ` (20 characters) plus `.` and the digits.
      const longest = pg ? (pgDigits(column) === 0 ? 20 : 21 + pgDigits(column)) : Infinity;
      return (v) => {
        if (typeof v === 'string' && CANONICAL_UTC.test(v) && v.length <= longest && isPlainDateTime(v)) return inSqlYears(column, v, v);
        const ns = epochNanos(column, v);
        inUnit(column, v, ns, per);
        return inSqlYears(column, v, isoUTC(ns));
      };
    }
    case 'time': {
      const per = pg ? 10n ** BigInt(9 - pgDigits(column)) : 1n;
      return (v) => { const ns = timeNanos(column, v); inUnit(column, v, ns, per); return timeText(ns); };
    }
    case 'guid': return (v) => guidText(column, v);
    case 'binary': return (v) => Buffer.from(binaryBytes(column, v));
    // PostgreSQL's text has no NUL character and its jsonb no `\u0000` escape: refused by name here rather than
    // by the server's COPY error, which names neither the column nor the record.
    case 'json': return pg ? (v) => {
      const json = jsonColumnText(column, v);
      if (json.includes('\\u') && NUL_ESCAPE.test(json)) throw bad(column, v, 'holds a NUL character, which PostgreSQL\'s jsonb cannot hold; sync into SQLite, or export to Parquet, which keep it');
      return json;
    } : (v) => jsonColumnText(column, v);
    case 'duration': case 'string': return pg ? (v) => {
      const t = wellFormedText(column, v);
      if (t.includes('\u0000')) throw bad(column, v, 'holds a NUL character, which PostgreSQL\'s text cannot hold; sync into SQLite, or export to Parquet, which keep it');
      return t;
    } : (v) => wellFormedText(column, v);
  }
}
