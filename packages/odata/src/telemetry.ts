// What an OData request is, for the core otel() plugin: span attributes in the request's context
// (core's SPAN_ATTRIBUTES), named after the OpenTelemetry conventions' {namespace}.{object}.{property} rule.
import { SPAN_ATTRIBUTES, type SpanAttributeValue } from '@sluice/core';

/** What sluice did in one request: the span attribute `odata.operation.type`. */
export type ODataOperationType =
  | 'read' | 'count' | 'metadata' | 'service_document' | 'create' | 'update' | 'replace' | 'delete'
  | 'action' | 'function' | 'batch' | 'delta' | 'async_poll' | 'async_cancel' | 'async_result';

/** The span attribute names `@sluice/odata` sets on each request's span (with core's `otel()` plugin). */
export const ODATA_SPAN_ATTRIBUTES = {
  /** The entity set (or singleton) the request addresses first, such as `Products` for `Products(7)/Category`. */
  entitySet: 'odata.entity_set.name',
  /** {@link ODataOperationType}. */
  operationType: 'odata.operation.type',
  /** The action or function called, as named in the call (`Demo.Approve`, `StartJob`). */
  operationName: 'odata.operation.name',
  /** The 1-based page of a collection or delta read; a page read again after its body broke keeps its number. */
  pageNumber: 'odata.page.number',
} as const;

/** One request's description. @internal */
export interface ODataSpan {
  readonly type: ODataOperationType;
  readonly entitySet?: string | undefined;
  readonly name?: string | undefined;
  readonly page?: number | undefined;
}

/** The request context that carries `span` to the otel() plugin. @internal */
export function spanContext(span: ODataSpan): Record<string, unknown> {
  const attributes: Record<string, SpanAttributeValue> = { [ODATA_SPAN_ATTRIBUTES.operationType]: span.type };
  if (span.entitySet !== undefined) attributes[ODATA_SPAN_ATTRIBUTES.entitySet] = span.entitySet;
  if (span.name !== undefined) attributes[ODATA_SPAN_ATTRIBUTES.operationName] = span.name;
  if (span.page !== undefined) attributes[ODATA_SPAN_ATTRIBUTES.pageNumber] = span.page;
  return { [SPAN_ATTRIBUTES]: attributes };
}

/**
 * The first resource a URL under the service root names, decoded (`Products` for `<root>/Products(7)?…`);
 * undefined for system resources (`$batch`, `$metadata`) and URLs elsewhere. @internal
 */
export function entitySetOf(serviceURL: string, url: string): string | undefined {
  if (!url.startsWith(serviceURL)) return undefined;
  const first = /^[^/(?#]+/.exec(url.slice(serviceURL.length))?.[0];
  if (first === undefined || first.startsWith('$')) return undefined;
  try {
    return decodeURIComponent(first);
  } catch {
    return first;
  }
}

/**
 * Numbers the pages of one read by URL: a new URL is the next page, the same URL again (a page resumed)
 * keeps its number. Remembers only the last few URLs, as at most two pages are in flight. @internal
 */
export class PageCounter {
  private count = 0;
  private readonly recent: [string, number][] = [];

  number(url: string): number {
    const known = this.recent.find(([u]) => u === url);
    if (known !== undefined) return known[1];
    this.count++;
    this.recent.push([url, this.count]);
    if (this.recent.length > 4) this.recent.shift();
    return this.count;
  }
}
