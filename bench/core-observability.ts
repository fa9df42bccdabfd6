// What seeing costs: client CPU per small-JSON GET (in-memory transport, so only sluice's own work is
// measured) with nobody listening to events, with a listener, with the debug-log formatter, and with the
// otel() plugin recording into the OpenTelemetry SDK. Interleaved rounds; ratios against "off" per round.
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { createClient, otel, type ClientOptions } from '../packages/core/src/index.js';
import { formatEvent } from '../packages/core/src/debug-log.js';
import { MemoryTransport } from './memory-transport.js';
import { drive, median } from './child-server.js';

export const name = 'core-observability';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = 20_000;
const CONCURRENCY = 16;
const BODY = new TextEncoder().encode('{"id":42,"name":"Ada Lovelace","email":"ada@example.com","active":true,"roles":["admin"]}');

/** Exports nothing: the SDK's span processing is measured, not an exporter's I/O. */
const dropSpans: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => undefined };

/** Keeps the listeners' work observable so it is not optimised away. */
const seen = { n: 0 };
const CONFIGS: [string, () => ClientOptions][] = [
  ['events off (nobody listens)', () => ({})],
  ['events on (a no-op listener)', () => ({ onEvent: () => { seen.n++; } })],
  ['debug log lines formatted (not written)', () => ({ onEvent: (e) => { seen.n += formatEvent(e)?.length ?? 0; } })],
  ['otel() with the SDK (spans dropped after processing)', () => ({
    plugins: [otel({
      tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(dropSpans)] }),
      meterProvider: new MeterProvider(),
    })],
  })],
];

export async function run(): Promise<string> {
  const clients = CONFIGS.map(([label, options]) => [label, createClient({
    baseURL: 'http://127.0.0.1:1/api', transport: new MemoryTransport(BODY), retryBudget: false, pauseOnRetryAfter: false, ...options(),
  })] as const);
  for (const [, c] of clients) await drive(REQUESTS, CONCURRENCY, () => c.getJSON('users/42?page=1'));
  const cpu = new Map<string, number[]>();
  const ratios = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS * 2; round++) {
    const order = round % 2 === 0 ? clients : [...clients].reverse();
    const thisRound = new Map<string, number>();
    for (const [label, c] of order) {
      const before = process.cpuUsage();
      await drive(REQUESTS, CONCURRENCY, () => c.getJSON('users/42?page=1'));
      const used = process.cpuUsage(before);
      thisRound.set(label, (used.user + used.system) / REQUESTS);
    }
    const off = thisRound.get(CONFIGS[0]![0])!;
    for (const [label, us] of thisRound) {
      cpu.set(label, [...(cpu.get(label) ?? []), us]);
      ratios.set(label, [...(ratios.get(label) ?? []), us / off]);
    }
  }
  await Promise.all(clients.map(([, c]) => c.close()));
  const rows = clients.map(([label]) => {
    const r = ratios.get(label)!;
    return `| ${label} | ${median(cpu.get(label)!).toFixed(2)} µs | ${median(r).toFixed(2)} | ${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)} |`;
  });
  return [
    '## Core: cost of events, debug log and tracing',
    '',
    `CPU time per GET of a 90-byte JSON document through an in-memory transport (no network: sluice's own work),`,
    `${REQUESTS} requests per client per round, ${CONCURRENCY} in flight, ${ROUNDS * 2} interleaved rounds; ratio against`,
    `"events off" in the same round. Off costs one property check per emit site.`,
    '',
    '| configuration | CPU per request (median) | ratio to off | ratio range |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
