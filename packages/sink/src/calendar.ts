// Days of the proleptic Gregorian calendar without `Date.UTC` (which reads years 0 to 99 as 1900 to 1999 and
// rolls an impossible day or time over into the next month or hour), for the exact paths of values.ts.

/** Days since 1970-01-01 of a proleptic Gregorian date (any year, 0 to 99 included: `Date.UTC` would read 50 as 1950). */
export function civilDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** Whether year-month-day is a day of the calendar (month 1 to 12, day within the month: no 2023-02-29). */
export function isCalendarDate(year: number, month: number, day: number): boolean {
  if (!(month >= 1 && month <= 12 && day >= 1)) return false;
  if (month === 2) return day <= ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28);
  return day <= (month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31);
}

/** Digits `text[at, at + 2)` as a number (NaN when not two digits). */
function two(text: string, at: number): number {
  const a = text.charCodeAt(at) - 48;
  const b = text.charCodeAt(at + 1) - 48;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : NaN;
}

/**
 * Whether a text `YYYY-MM-DD...` (a 4-digit year, as the fast paths take it) names a real day, and, when it goes
 * on with `Thh:mm[:ss]`, a real time (hour 0 to 23, minute and second 0 to 59): `Date.parse` rolls 2024-02-30 over
 * into March.
 */
export function isPlainDateTime(text: string): boolean {
  const year = two(text, 0) * 100 + two(text, 2);
  if (year !== year || text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || !isCalendarDate(year, two(text, 5), two(text, 8))) return false;
  if (text.length <= 10) return true;
  return two(text, 11) <= 23 && two(text, 14) <= 59 && (text.charCodeAt(16) !== 58 || two(text, 17) <= 59);
}
