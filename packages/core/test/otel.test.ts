import { describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { MeterProvider, MetricReader, type HistogramMetricData } from '@opentelemetry/sdk-metrics';
import { startServer, sendJSON } from '@sluice/testkit';
import { ConfigError, createClient, otel, SPAN_ATTRIBUTES, type OtelOptions } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();

/** A metric reader collected on demand. */
class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

function telemetry(): { exporter: InMemorySpanExporter; reader: TestReader; options: OtelOptions } {
  const exporter = new InMemorySpanExporter();
  const reader = new TestReader();
  return {
    exporter, reader,
    options: {
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
      meterProvider: new MeterProvider({ readers: [reader] }),
    },
  };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

describe('otel()', () => {
  it('one client span for a request retried twice, an event per retry, traceparent on every attempt, a duration histogram', async () => {
    let calls = 0;
    const s = track(await startServer((_req, res) => sendJSON(res, ++calls < 3 ? 503 : 200, {})));
    const { exporter, reader, options } = telemetry();
    const client = track(createClient({
      baseURL: s.origin, retry: { maxAttempts: 3, waitBase: 1 }, headers: { authorization: 'Bearer s3cret' }, plugins: [otel(options)],
    }));
    await (await client.get('items', { query: { access_token: 'q-s3cret', page: 1 } })).cancel();

    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const span = spans[0]!;
    expect(span.name).toBe('GET');
    expect(span.kind).toBe(SpanKind.CLIENT);
    const port = Number(new URL(s.origin).port);
    expect(span.attributes).toEqual({
      'http.request.method': 'GET', 'server.address': '127.0.0.1', 'server.port': port,
      'url.full': `${s.origin}/items?access_token=REDACTED&page=1`, 'http.response.status_code': 200, 'http.request.resend_count': 2,
    });
    expect(span.events.map((e) => [e.name, e.attributes?.['http.request.resend_count'], e.attributes?.['sluice.retry.reason']])).toEqual([
      ['sluice.retry', 1, 'status 503'], ['sluice.retry', 2, 'status 503'],
    ]);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);

    // Every attempt carries the span's context.
    expect(s.requests).toHaveLength(3);
    for (const request of s.requests) {
      const match = TRACEPARENT.exec(String(request.headers.traceparent));
      expect(match?.[1]).toBe(span.spanContext().traceId);
      expect(match?.[2]).toBe(span.spanContext().spanId);
    }

    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === 'http.client.request.duration') as HistogramMetricData;
    expect(metric.descriptor.unit).toBe('s');
    expect(metric.dataPoints).toHaveLength(1);
    expect(metric.dataPoints[0]!.value.count).toBe(1);
    expect(metric.dataPoints[0]!.attributes).toMatchObject({ 'http.request.method': 'GET', 'http.response.status_code': 200, 'server.port': port });
    expect(JSON.stringify([span.attributes, span.events, metric.dataPoints])).not.toContain('s3cret');
  });

  // Issue 29: OData v2's MERGE was recorded as http.request.method MERGE in a span named MERGE.
  it('a method the conventions do not know is _OTHER with http.request.method_original, in a span named HTTP', async () => {
    const s = track(await startServer((_req, res) => { res.writeHead(204).end(); }));
    const { exporter, reader, options } = telemetry();
    const client = track(createClient({ baseURL: s.origin, plugins: [otel(options)] }));
    await (await client.request({ method: 'MERGE', path: 'Orders(1)', json: { a: 1 } })).cancel();
    await (await client.request({ method: 'PATCH', path: 'Orders(1)', json: { a: 1 } })).cancel();
    expect(s.requests.map((r) => r.method)).toEqual(['MERGE', 'PATCH']);
    const [merge, patch] = exporter.getFinishedSpans();
    expect(merge!.name).toBe('HTTP');
    expect(merge!.attributes).toMatchObject({ 'http.request.method': '_OTHER', 'http.request.method_original': 'MERGE', 'http.response.status_code': 204 });
    expect(patch!.name).toBe('PATCH');
    expect(patch!.attributes['http.request.method']).toBe('PATCH');
    expect(patch!.attributes['http.request.method_original']).toBeUndefined();
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === 'http.client.request.duration') as HistogramMetricData;
    expect(metric.dataPoints.map((p) => p.attributes['http.request.method']).sort()).toEqual(['PATCH', '_OTHER']);
  });

  it('url.full redacts the query keys the HTTP conventions list, keeping the keys', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const { exporter, options } = telemetry();
    const client = track(createClient({ plugins: [otel(options)] }));
    const signed = `http://127.0.0.1:${s.port}/bucket/o?AWSAccessKeyId=AKIA29&Signature=s1g&sig=s2&X-Goog-Signature=g00g&q=OpenTelemetry`;
    await (await client.get(signed)).cancel();
    expect(exporter.getFinishedSpans()[0]!.attributes['url.full']).toBe(
      `http://127.0.0.1:${s.port}/bucket/o?AWSAccessKeyId=REDACTED&Signature=REDACTED&sig=REDACTED&X-Goog-Signature=REDACTED&q=OpenTelemetry`,
    );
  });

  it('a failed request ends its span with error.type and an error status; propagate: false sends no traceparent', async () => {
    const s = track(await startServer((req, res) => {
      if (req.url === '/gone') req.socket.destroy();
      else sendJSON(res, 404, {});
    }));
    const { exporter, options } = telemetry();
    const client = track(createClient({ baseURL: s.origin, retry: { maxAttempts: 2, waitBase: 1 }, plugins: [otel({ ...options, propagate: false })] }));
    await expect(client.get('gone')).rejects.toMatchObject({ name: 'NetworkError' });
    await expect(client.get('missing')).rejects.toMatchObject({ status: 404 });
    const [failed, missing] = exporter.getFinishedSpans();
    expect(failed!.attributes).toMatchObject({ 'error.type': 'NetworkError', 'http.request.resend_count': 1 });
    expect(failed!.attributes['http.response.status_code']).toBeUndefined();
    expect(failed!.status.code).toBe(SpanStatusCode.ERROR);
    expect(missing!.attributes).toMatchObject({ 'error.type': '404', 'http.response.status_code': 404 });
    expect(missing!.attributes['http.request.resend_count']).toBeUndefined();
    for (const request of s.requests) expect(request.headers.traceparent).toBeUndefined();
  });

  it("adds a request's context attributes (SPAN_ATTRIBUTES) and the attributes hook's to its span only, never over the HTTP ones", async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const { exporter, reader, options } = telemetry();
    const client = track(createClient({
      baseURL: s.origin,
      plugins: [otel({ ...options, attributes: (req) => (req.url.endsWith('/b') ? { 'app.route': 'b', 'app.tenant': 'hook' } : undefined) })],
    }));
    const context = { [SPAN_ATTRIBUTES]: { 'app.tenant': 'ctx', 'app.page': 2, 'app.cached': false, 'http.request.method': 'FAKE', 'app.object': { no: 1 } } };
    await (await client.get('a', { context })).cancel();
    await (await client.get('b', { context })).cancel();
    const [a, b] = exporter.getFinishedSpans();
    expect(a!.attributes).toMatchObject({ 'app.tenant': 'ctx', 'app.page': 2, 'app.cached': false, 'http.request.method': 'GET' });
    expect(a!.attributes['app.object']).toBeUndefined();
    expect(b!.attributes).toMatchObject({ 'app.tenant': 'hook', 'app.route': 'b', 'app.page': 2 });
    const { resourceMetrics } = await reader.collect();
    const metric = resourceMetrics.scopeMetrics.flatMap((m) => m.metrics).find((m) => m.descriptor.name === 'http.client.request.duration') as HistogramMetricData;
    for (const point of metric.dataPoints) expect(Object.keys(point.attributes).filter((k) => k.startsWith('app.'))).toEqual([]);
    expect(() => otel({ attributes: 'nope' as never })).toThrow(ConfigError);
  });

  it('concurrent requests get one span each, each attempt carrying its own', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const { exporter, options } = telemetry();
    const client = track(createClient({ baseURL: s.origin, plugins: [otel(options)] }));
    const responses = await Promise.all(['a', 'b', 'c'].map((p) => client.get(p)));
    for (const r of responses) await r.cancel();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.attributes['url.full']).sort()).toEqual(['a', 'b', 'c'].map((p) => `${s.origin}/${p}`));
    const sent = new Map(s.requests.map((r) => [r.url, TRACEPARENT.exec(String(r.headers.traceparent))?.[2]]));
    for (const span of spans) expect(sent.get(new URL(String(span.attributes['url.full'])).pathname)).toBe(span.spanContext().spanId);
  });
});
