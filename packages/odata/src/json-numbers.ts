// The numbers JSON has no form for. OData JSON writes a Double's or Single's special values as the strings
// "INF", "-INF" and "NaN" (v2 and v4 alike); the client reads them back as Infinity, -Infinity and NaN when it has
// the model, and JSON.stringify would write those as null. Shared by everything that writes decoded records as
// JSON again (the CLI's output, the sink's JSON columns) and by the URL literals.

/** `Infinity`, `-Infinity` or `NaN` as OData spells it: `INF`, `-INF`, `NaN` (any other number: its own text). */
export function odataFloatText(value: number): string {
  return Number.isNaN(value) ? 'NaN' : value === Infinity ? 'INF' : value === -Infinity ? '-INF' : String(value);
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
