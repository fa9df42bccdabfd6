import type { PluginRequest } from './types.js';

/** Values a span attribute may take (OpenTelemetry's primitive `AttributeValue`s). */
export type SpanAttributeValue = string | number | boolean;

/** Attribute names to values, added to a request's span by {@link otel}. */
export type SpanAttributes = Readonly<Record<string, SpanAttributeValue>>;

/**
 * The `request({ context })` key whose value, a {@link SpanAttributes} record, the `otel()` plugin adds to
 * the request's span. Packages on core describe their requests with it (`@sluice/odata` sets the entity set,
 * the operation and the page number) without core knowing them.
 *
 * @example
 * ```ts
 * await client.get('orders', { context: { [SPAN_ATTRIBUTES]: { 'app.tenant': 'acme' } } })
 * ```
 */
export const SPAN_ATTRIBUTES = 'sluice.span.attributes';

/** The span attributes a request's context carries under {@link SPAN_ATTRIBUTES}, primitives only. @internal */
export function contextSpanAttributes(request: PluginRequest): Record<string, SpanAttributeValue> | undefined {
  const given = request.context[SPAN_ATTRIBUTES];
  if (typeof given !== 'object' || given === null) return undefined;
  let out: Record<string, SpanAttributeValue> | undefined;
  for (const [name, value] of Object.entries(given)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') (out ??= {})[name] = value;
  }
  return out;
}
