/**
 * Reading numbers exactly when a v4 service sends Int64 and Decimal values as JSON numbers although
 * `IEEE754Compatible=true` was asked for (SAP CAP without its feature flag, Microsoft Graph): `JSON.parse`
 * would round `9007199254740993` to `9007199254740992` and a Decimal to a float. The text is rewritten
 * before it is parsed: number tokens that must stay exact become JSON strings holding the very digits
 * the service sent.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const MINUS = 0x2d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

/** Whether `c` can continue a JSON number token (digits, `.`, `e`, `E`, `+`, `-`). */
function numberChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === MINUS;
}

/** An integer token whose value a double cannot hold exactly. */
function unsafeInteger(token: string): boolean {
  const digits = token.charCodeAt(0) === MINUS ? token.length - 1 : token.length;
  if (digits < 16) return false;
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (c === 0x2e || c === 0x65 || c === 0x45) return false;
  }
  return !Number.isSafeInteger(Number(token));
}

/**
 * Rewrites JSON text so that numbers that must stay exact are strings: every number that is the value of a
 * property named in `exact` at object depth `recordDepth` (1 for an entity body, 2 for the records of an
 * array `[{…},{…}]`), and every integer anywhere that a double cannot hold. Returns the text unchanged when
 * nothing needs quoting. Object keys and string contents are never touched; the result parses to the same
 * structure with those numbers as strings of their original digits.
 *
 * @example
 * ```ts
 * quoteExactNumbers('{"ID":9007199254740993,"Price":12.50,"Qty":3}', 1, new Set(['Price']))
 * // '{"ID":"9007199254740993","Price":"12.50","Qty":3}'
 * ```
 */
export function quoteExactNumbers(text: string, recordDepth: number, exact: ReadonlySet<string> | undefined): string {
  const n = text.length;
  let out: string[] | undefined;
  let copied = 0;
  let depth = 0;
  // The key of the value that follows, at the current depth (set by a string followed by a colon).
  let key: string | undefined;
  let lastString = '';
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let end = text.indexOf('"', i + 1);
      // Skip escaped quotes: an odd number of backslashes before the quote.
      while (end > 0) {
        let slashes = 0;
        for (let k = end - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) return text; // Truncated: let JSON.parse report it.
      lastString = text.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === COLON) {
      key = lastString;
      i++;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      key = undefined;
      i++;
      continue;
    }
    if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
      key = undefined;
      i++;
      continue;
    }
    if (c === MINUS || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < n && numberChar(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      const declared = depth === recordDepth && key !== undefined && exact !== undefined && exact.has(key);
      if (declared || unsafeInteger(token)) {
        out ??= [];
        out.push(text.slice(copied, i), '"', token, '"');
        copied = end;
      }
      key = undefined;
      i = end;
      continue;
    }
    if (c === 0x2c /* , */) key = undefined;
    i++;
  }
  if (out === undefined) return text;
  out.push(text.slice(copied));
  return out.join('');
}
