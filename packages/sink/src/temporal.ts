// Dates, date-times and times of day to exact forms: instants as nanoseconds since the epoch (UTC), times
// as nanoseconds since midnight, dates as `YYYY-MM-DD`. A day or time not on the calendar or the clock is an
// error naming the column, never rolled over.
import { civilDays, isCalendarDate, isPlainDateTime } from './calendar.js';
import type { Column } from './columns.js';
import { bad } from './values.js';

const ISO = /^(-?\d{4,})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?)?\s*(Z|[+-]\d\d:?\d\d)?$/i;

/** Nanoseconds of a fraction of a second (`5` is 500,000,000); digits past the ninth must be zeros. */
function nanosOf(column: Column, value: unknown, fraction: string | undefined): bigint {
  if (!fraction) return 0n;
  if (fraction.length > 9 && /[1-9]/.test(fraction.slice(9))) throw bad(column, value, 'has more than 9 fractional digits');
  return BigInt(fraction.slice(0, 9).padEnd(9, '0'));
}

/** The range of an instant in JavaScript (and so in the sink): 100,000,000 days either side of 1970. */
const MAX_MS = 8.64e15;

/**
 * An instant as nanoseconds since 1970-01-01T00:00:00Z, from a `Date` or an ISO 8601 text with `Z` or
 * an offset (a text without one is taken as UTC, as v2 `Edm.DateTime` is). A day or time that is not on the
 * calendar or the clock (2024-02-30, 10:75) is refused, not rolled over.
 */
export function epochNanos(column: Column, value: unknown): bigint {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw bad(column, value, 'is an invalid date');
    return BigInt(value.getTime()) * 1_000_000n;
  }
  const m = typeof value === 'string' ? ISO.exec(value.trim()) : null;
  if (!m) throw bad(column, value, 'is no ISO 8601 date-time');
  let offset = 0;
  const zone = m[8];
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const [hours, minutes] = [Number(digits.slice(1, 3)), Number(digits.slice(3, 5))];
    if (hours > 23 || minutes > 59) throw bad(column, value, 'is no valid date-time (an offset not on the clock)');
    offset = (hours * 60 + minutes) * (digits.startsWith('-') ? -1 : 1);
  }
  const [hour, minute, second] = [Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0)];
  if (!isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3])) || hour > 23 || minute > 59 || second > 59) throw bad(column, value, 'is no valid date-time (a day or time not on the calendar)');
  const ms = civilDays(Number(m[1]), Number(m[2]), Number(m[3])) * 86_400_000 + ((hour * 60 + minute - offset) * 60 + second) * 1000;
  if (!(Math.abs(ms) <= MAX_MS)) throw bad(column, value, 'is outside the range of date-times (years -271821 to 275760)');
  return BigInt(ms) * 1_000_000n + nanosOf(column, value, m[7]);
}

/** Nanoseconds in `unit` (1,000 for micros), refusing a value that would lose digits. */
export function inUnit(column: Column, value: unknown, nanos: bigint, per: bigint): bigint {
  if (nanos % per !== 0n) throw bad(column, value, `has more fractional-second digits than the column keeps (precision ${column.precision ?? 'not declared'})`);
  return nanos / per;
}

/** An instant as ISO 8601 text in UTC with as many fractional digits as it has (`2024-03-01T10:00:00.5Z`). */
export function isoUTC(nanos: bigint): string {
  const NS = 1_000_000_000n;
  const seconds = nanos / NS - (nanos % NS < 0n ? 1n : 0n);
  const fraction = (nanos - seconds * NS).toString().padStart(9, '0').replace(/0+$/, '');
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, 19)}${fraction ? `.${fraction}` : ''}Z`;
}

const TIME = /^(\d\d):(\d\d)(?::(\d\d)(?:\.(\d+))?)?$/;
const V2_TIME = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?$/;

/** A time of day (`13:20:05.5`, v2 `PT13H20M05.5S`) as nanoseconds since midnight. */
export function timeNanos(column: Column, value: unknown): bigint {
  const text = typeof value === 'string' ? value.trim() : '';
  const clock = TIME.exec(text);
  const m = clock ?? V2_TIME.exec(text);
  if (!m) throw bad(column, value, 'is no time of day');
  // hh:mm:ss is a clock reading (10:75 is no time); the v2 form is a duration since midnight (PT1H90M is 02:30).
  if (clock && (Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59)) throw bad(column, value, 'is no time of day (hour 0-23, minute and second 0-59)');
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  const nanos = BigInt(seconds) * 1_000_000_000n + nanosOf(column, value, m[4]);
  if (nanos >= 86_400n * 1_000_000_000n) throw bad(column, value, 'is not within a day');
  return nanos;
}

/** A time of day as `HH:MM:SS` with its significant fractional digits. */
export function timeText(nanos: bigint): string {
  const s = Number(nanos / 1_000_000_000n);
  const fraction = (nanos % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  const hms = [Math.floor(s / 3600), Math.floor(s / 60) % 60, s % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return fraction ? `${hms}.${fraction}` : hms;
}

const DATE = /^(-?\d{4,})-(\d\d)-(\d\d)$/;

/**
 * A valid `Date`'s day in UTC as the text {@link dateText} takes (`2024-03-01`, `10000-01-01`, `-0001-06-15`: a year of
 * at least 4 digits), so that a `Date` means what its text means: `toISOString` writes the years outside 0000-9999
 * with a sign and 6 digits (`+010000-01-01`), which a slice of it would cut into no date.
 */
function dayOf(date: Date): string {
  const year = date.getUTCFullYear();
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}`;
}

/**
 * A date (`2024-03-01`, or a `Date`, whose day is the text of {@link dayOf}) as `YYYY-MM-DD` (a year beyond 9999 or before 0
 * with more digits or a `-`); a day not on the calendar (2024-02-30) is refused. A date-time
 * is taken as its day only at midnight in UTC (`2024-03-01T00:00:00Z`, or without a zone), where nothing is lost;
 * another time of day or an offset (`T10:00:00Z`, `T00:00:00+02:00`) is refused, and so is a `Date` not at
 * midnight UTC.
 */
export function dateText(column: Column, value: unknown): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw bad(column, value, 'is an invalid date');
    if (value.getTime() % 86_400_000 !== 0) throw bad(column, value, 'is a date-time, not a date: its time of day would be lost (an Edm.Date keeps the day; only a midnight in UTC is taken as its day)');
    return dayOf(value);
  }
  if (typeof value === 'string' && value.length === 10 && isPlainDateTime(value)) return value;
  const date = typeof value === 'string' ? DATE.exec(value.trim()) : null;
  if (date) {
    if (!isCalendarDate(Number(date[1]), Number(date[2]), Number(date[3]))) throw bad(column, value, 'is no valid date (a day not on the calendar)');
    return (value as string).trim();
  }
  const m = typeof value === 'string' ? ISO.exec(value.trim()) : null;
  if (!m) throw bad(column, value, 'is no date');
  // A date-time (or a date with an offset): its day, when midnight in UTC (or without a zone) says nothing more.
  const midnight = Number(m[4] ?? 0) === 0 && Number(m[5] ?? 0) === 0 && Number(m[6] ?? 0) === 0 && !/[1-9]/.test(m[7] ?? '');
  if (!midnight || (m[8] !== undefined && !/^(?:Z|[+-]00:?00)$/i.test(m[8]))) {
    throw bad(column, value, `is a date-time, not a date: its ${midnight ? 'offset' : 'time of day'} would be lost (an Edm.Date keeps the day; only a midnight in UTC is taken as its day)`);
  }
  if (!isCalendarDate(Number(m[1]), Number(m[2]), Number(m[3]))) throw bad(column, value, 'is no valid date (a day not on the calendar)');
  return `${m[1]}-${m[2]}-${m[3]}`;
}

/** Days since 1970-01-01 of a `YYYY-MM-DD` date (as {@link dateText} gives it). */
export function epochDays(date: string): number {
  const [y, m, d] = date.split(/(?<=\d)-/).map(Number);
  return civilDays(y!, m!, d!);
}

/** Milliseconds of an ISO text `YYYY-MM-DDThh:mm:ssZ` or `YYYY-MM-DDThh:mm:ss.sssZ`, or undefined for another shape. */
function plainUTCMillis(text: string): number | undefined {
  const n = text.length;
  if ((n !== 20 && n !== 24) || text.charCodeAt(n - 1) !== 90 || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58 || (n === 24 && text.charCodeAt(19) !== 46)) return undefined;
  for (const i of n === 24 ? UTC_DIGITS_MS : UTC_DIGITS) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
  }
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}
const UTC_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18];
const UTC_DIGITS_MS = [...UTC_DIGITS, 20, 21, 22];

/**
 * An instant in a unit (`perMs` units per millisecond: 1, 1,000 or 1,000,000; `per` nanoseconds per unit), as
 * {@link epochNanos} and {@link inUnit} give it: a number for a `Date` or a plain UTC text when it is a safe
 * integer, else a bigint.
 */
export function instantValue(column: Column, value: unknown, perMs: number, per: bigint): number | bigint {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'string' ? plainUTCMillis(value) : undefined;
  if (ms !== undefined && Number.isInteger(ms) && (typeof value !== 'string' || isPlainDateTime(value))) {
    const n = ms * perMs;
    if (Number.isSafeInteger(n)) return n;
  }
  return inUnit(column, value, epochNanos(column, value), per);
}
