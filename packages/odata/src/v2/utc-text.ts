// The text of a UTC instant, as `new Date(ms).toISOString()` writes it, without V8's date formatting: v2 reads turn
// every `/Date(ms)/` value into such text, and toISOString() cost about as much per record as parsing it.

const DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString() writes with four digits. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

/** `00` to `99`, and `000` to `999`: the fields of the text, without building them per value. */
const TWO: readonly string[] = Array.from({ length: 100 }, (_, n) => (n < 10 ? `0${n}` : `${n}`));
const THREE: readonly string[] = Array.from({ length: 1000 }, (_, n) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`));

/**
 * `YYYY-MM-DD` of the day `days` since 1970-01-01 in the proleptic Gregorian calendar (eras of 400 years from 0000-03-01),
 * as v4 writes an Edm.Date: a year of at least 4 digits, `-` before the year 0 (`10000-01-01`, `-0001-06-15`).
 */
function dayText(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const y = year >= 1000 ? `${year}` : year >= 0 ? `${year}`.padStart(4, '0') : `-${`${-year}`.padStart(4, '0')}`;
  return `${y}-${TWO[month]!}-${TWO[day]!}`;
}

/** The day of the last value and its text: the records of a page mostly hold instants of the same few days. */
let lastDay = NaN;
let lastDayText = '';

/**
 * `YYYY-MM-DDTHH:mm:ss.sssZ` of `ms` since 1970 (an integer), exactly as `new Date(ms).toISOString()`; outside the
 * years 0000-9999 (six-digit years) and for anything that is no finite integer, toISOString() itself answers.
 */
export function utcText(ms: number): string {
  if (!(ms >= FIRST && ms <= LAST) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY);
  let rest = ms - days * DAY;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  const millis = rest - seconds * 1000;
  if (days !== lastDay) {
    lastDayText = `${dayText(days)}T`;
    lastDay = days;
  }
  return lastDayText + TWO[hours]! + ':' + TWO[minutes]! + ':' + TWO[seconds]! + '.' + THREE[millis]! + 'Z';
}

/** The range of an instant in JavaScript: 100,000,000 days either side of 1970 (years -271821 to 275760). */
export const MAX_INSTANT_MS = 8.64e15;

/**
 * The day in UTC of `ms` since 1970 (an integer within {@link MAX_INSTANT_MS}) as v4 writes an Edm.Date: `2020-02-29`,
 * and outside the years 0000-9999 `10000-01-01` or `-0001-06-15` (not toISOString()'s `+010000`/`-000001`).
 */
export function utcDay(ms: number): string {
  return dayText(Math.floor(ms / DAY));
}
