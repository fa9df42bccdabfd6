// The text of a UTC instant, as `new Date(ms).toISOString()` writes it, without V8's date formatting: v2 reads turn
// every `/Date(ms)/` value into such text, and toISOString() cost about as much per record as parsing it.

const DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z: the years toISOString() writes with four digits. */
const FIRST = -62_167_219_200_000;
const LAST = 253_402_300_799_999;

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

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
  // Civil date from days since 1970-01-01 in the proleptic Gregorian calendar (eras of 400 years from 0000-03-01).
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const y = year >= 1000 ? `${year}` : `${year}`.padStart(4, '0');
  const ms3 = millis >= 100 ? `${millis}` : millis >= 10 ? `0${millis}` : `00${millis}`;
  return `${y}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${ms3}Z`;
}
