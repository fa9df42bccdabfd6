import type { Histogram, MeterProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import type { Client } from './client.js';
import { ConfigError } from './errors.js';
import type { SluiceEvent } from './events.js';
import type { Plugin, PluginRequest } from './types.js';
import type { KnownSecrets } from './known-secrets.js';
import { spanURL } from './redact.js';
import { contextSpanAttributes, type SpanAttributes } from './span-attributes.js';

type API = typeof import('@opentelemetry/api');

/**
 * An OpenTelemetry `TracerProvider`, typed by shape so that sluice's declarations do not need
 * `@opentelemetry/api` installed.
 */
export interface OtelTracerProvider {
  getTracer(name: string, version?: string, options?: object): object;
}

/** An OpenTelemetry `MeterProvider`, typed by shape (see {@link OtelTracerProvider}). */
export interface OtelMeterProvider {
  getMeter(name: string, version?: string, options?: object): object;
}

/** Options of {@link otel}. */
export interface OtelOptions {
  /** Where spans go. Default: the global tracer provider (`trace.setGlobalTracerProvider`, or the one the OpenTelemetry Node SDK registers). */
  tracerProvider?: OtelTracerProvider | undefined;
  /** Where the `http.client.request.duration` histogram goes. Default: the global meter provider. */
  meterProvider?: OtelMeterProvider | undefined;
  /** Send the trace context (`traceparent`, `tracestate`) with each request. Default true. */
  propagate?: boolean | undefined;
  /**
   * More attributes for a request's span, asked once when the span starts; they win over those the
   * request's context carries under `SPAN_ATTRIBUTES`. Span only: the duration histogram keeps the
   * HTTP conventions' low-cardinality set.
   */
  attributes?: ((request: PluginRequest) => SpanAttributes | undefined) | undefined;
}

/**
 * The methods the HTTP conventions know (RFC 9110 and RFC 5789 PATCH); any other (OData v2's `MERGE`) is
 * recorded as `_OTHER` with `http.request.method_original`, in a span named `HTTP`.
 */
const KNOWN_METHODS = new Set(['CONNECT', 'DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT', 'TRACE']);

/** Histogram buckets (seconds) the HTTP semantic conventions advise for request durations. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

interface Traced {
  readonly span: Span;
  readonly attributes: Record<string, string | number>;
  retries: number;
  resends: number;
}

/** The OpenTelemetry parts one plugin uses, made once `@opentelemetry/api` is loaded. */
interface Instruments {
  readonly api: API;
  readonly tracer: Tracer;
  readonly duration: Histogram;
}

/**
 * OpenTelemetry for a client, as a plugin: one `CLIENT` span per logical request (retries and plugin
 * resends included) named after the method (`HTTP` for a method the conventions do not know, such as
 * `MERGE`, recorded as `_OTHER` with `http.request.method_original`), with an event per retry, attributes
 * per the HTTP semantic conventions (`http.request.method`, `server.address`, `server.port`, `url.full`
 * with credentials and sensitive query values as `REDACTED`,
 * `http.response.status_code`, `http.request.resend_count`, `error.type`), the trace context sent in
 * `traceparent`, and an `http.client.request.duration` histogram (seconds). `@opentelemetry/api` is an
 * optional peer dependency, loaded on the first request: without it that request fails with a
 * {@link ConfigError}, and clients without this plugin never load it. A request adds its own attributes
 * through its context (`SPAN_ATTRIBUTES`; `@sluice/odata` sets the entity set, operation and page there)
 * or the `attributes` option.
 *
 * @example
 * ```ts
 * import { createClient, otel } from '@sluice/core'
 * const client = createClient({ baseURL: 'https://api.example.com/v1', plugins: [otel()] })
 * ```
 */
export function otel(options: OtelOptions = {}): Plugin {
  let loading: Promise<Instruments> | undefined;
  let ready: Instruments | undefined;
  const traced = new Map<number, Traced>();
  let secrets: KnownSecrets | undefined;
  const propagate = options.propagate ?? true;
  const extra = options.attributes;
  if (extra !== undefined && typeof extra !== 'function') throw new ConfigError('otel.attributes', 'must be a function of the request');

  const load = (): Promise<Instruments> => (loading ??= import('@opentelemetry/api').then((api) => {
    const tracer = ((options.tracerProvider as TracerProvider | undefined) ?? api.trace.getTracerProvider()).getTracer('@sluice/core');
    const meter = ((options.meterProvider as MeterProvider | undefined) ?? api.metrics.getMeterProvider()).getMeter('@sluice/core');
    const duration = meter.createHistogram('http.client.request.duration', {
      unit: 's', description: 'Duration of HTTP client requests.', advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    });
    return (ready = { api, tracer, duration });
  }, (cause: unknown) => {
    throw new ConfigError('otel', 'needs the optional peer dependency @opentelemetry/api (npm install @opentelemetry/api)', { cause });
  }));

  const onEvent = (event: SluiceEvent): void => {
    if (ready === undefined) return;
    if (event.type === 'retry.scheduled') {
      const entry = traced.get(event.requestId);
      if (entry === undefined) return;
      entry.retries++;
      entry.span.addEvent('sluice.retry', {
        'http.request.resend_count': entry.retries + entry.resends, 'sluice.retry.reason': event.reason, 'sluice.retry.delay_ms': event.delayMs,
      });
    } else if (event.type === 'request.end') {
      const entry = traced.get(event.requestId);
      if (entry === undefined) return;
      traced.delete(event.requestId);
      finish(ready, entry, event);
    }
  };

  return {
    name: 'otel',
    setup(client: Client) {
      client.events.on(onEvent);
      secrets = client.secrets;
    },
    async onRequest(request: PluginRequest) {
      const instruments = ready ?? await load();
      let entry = traced.get(request.id);
      if (entry === undefined) {
        entry = start(instruments, request, extra, secrets);
        traced.set(request.id, entry);
      } else {
        entry.resends = request.resends;
      }
      if (propagate) inject(instruments.api, entry.span, request.headers);
    },
  };
}

function start({ api, tracer }: Instruments, request: PluginRequest, extra: OtelOptions['attributes'], secrets: KnownSecrets | undefined): Traced {
  const url = new URL(request.url);
  const known = KNOWN_METHODS.has(request.method);
  const attributes: Record<string, string | number> = {
    'http.request.method': known ? request.method : '_OTHER',
    'server.address': url.hostname.replace(/^\[|\]$/g, ''),
    'server.port': url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port),
  };
  const full = spanURL(request.url);
  const spanOnly: Record<string, string> = { 'url.full': secrets?.scrub(full) ?? full };
  if (!known) spanOnly['http.request.method_original'] = request.method;
  const span = tracer.startSpan(known ? request.method : 'HTTP', {
    kind: api.SpanKind.CLIENT, attributes: { ...contextSpanAttributes(request), ...extra?.(request), ...attributes, ...spanOnly },
  }, api.context.active());
  return { span, attributes, retries: 0, resends: 0 };
}

/** Writes the trace context through the registered propagator, or as a W3C `traceparent` when none is registered. */
function inject(api: API, span: Span, headers: Record<string, string>): void {
  api.propagation.inject(api.trace.setSpan(api.context.active(), span), headers);
  if (headers.traceparent !== undefined) return;
  const context = span.spanContext();
  if (!api.isSpanContextValid(context)) return;
  headers.traceparent = `00-${context.traceId}-${context.spanId}-${context.traceFlags.toString(16).padStart(2, '0')}`;
  const state = context.traceState?.serialize();
  if (state) headers.tracestate = state;
}

function finish({ api, duration }: Instruments, entry: Traced, event: Extract<SluiceEvent, { type: 'request.end' }>): void {
  const { span } = entry;
  const attributes = { ...entry.attributes };
  if (event.status !== undefined) attributes['http.response.status_code'] = event.status;
  const errorType = event.errorType ?? (event.status !== undefined && event.status >= 400 ? String(event.status) : undefined);
  if (errorType !== undefined) {
    attributes['error.type'] = errorType;
    span.setStatus({ code: api.SpanStatusCode.ERROR });
  }
  const resends = entry.retries + entry.resends;
  span.setAttributes(resends > 0 ? { ...attributes, 'http.request.resend_count': resends } : attributes);
  span.end();
  duration.record(event.durationMs / 1000, attributes);
}
