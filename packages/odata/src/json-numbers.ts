// The numbers JSON has no form for. OData JSON writes a Double's or Single's special values as the strings
// "INF", "-INF" and "NaN" (v2 and v4 alike); the client reads them back as Infinity, -Infinity and NaN when it has
// the model, and JSON.stringify would write those as null. Shared by everything that writes decoded records as
// JSON again (the CLI's output, the sink's JSON columns) and by the URL literals; odataFloatValue, the other
// direction, by the client's decoding and the sink's Double columns.

/** `Infinity`, `-Infinity` or `NaN` as OData spells it: `INF`, `-INF`, `NaN` (any other number: its own text). */
export function odataFloatText(value: number): string {
  // JSON.stringify writes a finite number's digits exactly as String() does (-0 as `0`), but String() of a
  // non-integer also puts the new string in V8's number-to-string cache, which is allocated in the old
  // generation: a CSV export of a million Doubles would fill the old space with dead strings.
  if (Number.isFinite(value)) return JSON.stringify(value);
  return Number.isNaN(value) ? 'NaN' : value === Infinity ? 'INF' : '-INF';
}

/**
 * A `JSON.stringify` replacer writing `Infinity`, `-Infinity` and `NaN` as OData JSON does (`"INF"`, `"-INF"`,
 * `"NaN"`) instead of `null`; every other value as it is.
 *
 * @example
 * JSON.stringify({ Value: Infinity }, odataJsonNumbers); // '{"Value":"INF"}'
 */
export function odataJsonNumbers(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isFinite(value) ? odataFloatText(value) : value;
}

/** A Double's or Single's text as OData JSON may send it: a decimal number with an optional exponent. */
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The number a Double's or Single's text stands for, as OData JSON sends it in a string (`"INF"`, `"-INF"`,
 * `"NaN"`, or a number such as v2's `"1.5E+2"` or v4's under `IEEE754Compatible`); undefined for any other
 * text, which is no number: `""`, `" 1"` (no spaces), `"Infinity"`, `"0x10"`, `"1e"`. A number beyond a
 * Double's range reads as IEEE 754 rounds it, as a JSON number would (`"1e400"` is `Infinity`).
 *
 * @example
 * odataFloatValue('-INF'); // -Infinity
 * odataFloatValue('1.5E+2'); // 150
 * odataFloatValue('Infinity'); // undefined
 */
export function odataFloatValue(text: string): number | undefined {
  switch (text) {
    case 'INF': return Infinity;
    case '-INF': return -Infinity;
    case 'NaN': return NaN;
    default: return FLOAT_TEXT.test(text) ? Number(text) : undefined;
  }
}
