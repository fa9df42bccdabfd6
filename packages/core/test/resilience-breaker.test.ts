import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import type { ServerResponse } from 'node:http';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { transports } from './transports.js';
import {
  CircuitOpenError, createClient, HttpError, NetworkError, sleep, TimeoutError, type CircuitBreakerOptions, type CircuitStateChange, type Client,
} from '@sluice/core';

let server: TestServer | undefined;
let client: Client | undefined;
const track = closeAfterEach();

/** A server whose answer the test changes on the fly. */
async function switchable(): Promise<{ mode: { status: number } }> {
  const mode = { status: 500 };
  server = track(await startServer((_req, res) => sendJSON(res, mode.status, { status: mode.status })));
  return { mode };
}

function breakerClient(options: CircuitBreakerOptions, changes: CircuitStateChange[] = [], extra: object = {}): Client {
  client = track(createClient({
    baseURL: server!.origin, retry: false, ...extra,
    circuitBreaker: { onStateChange: (c) => changes.push(c), ...options },
  }));
  return client;
}

const transitions = (changes: CircuitStateChange[]): string[] => changes.map((c) => `${c.from}->${c.to}`);

/**
 * Waits until `c`'s circuit is half-open. The breaker is time-based and holds no timers (it turns
 * half-open on the first look after openDuration), so there is no event to await: sleep openDuration,
 * then look again in short steps should a loaded machine's timers run early against the breaker's clock.
 */
async function untilHalfOpen(c: Client, openDuration: number): Promise<void> {
  await sleep(openDuration);
  while (c.circuitState() !== 'half-open') await sleep(5);
}

// An open circuit must stay open longer than any stall of a loaded machine between two awaits of a test.
const LONG_OPEN = 60_000;

describe('circuitBreaker', () => {
  it('opens after consecutive failures and rejects without touching the server, saying when it probes', async () => {
    await switchable();
    const changes: CircuitStateChange[] = [];
    const c = breakerClient({ consecutiveFailures: 3, openDuration: LONG_OPEN }, changes);
    for (let i = 0; i < 3; i++) await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    expect(server!.requests).toHaveLength(3);
    expect(c.circuitState()).toBe('open');

    const rejected = await c.get('x').catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(CircuitOpenError);
    const open = rejected as CircuitOpenError;
    expect(open.origin).toBe(server!.origin);
    expect(open.state).toBe('open');
    expect(open.retryAfter).toBeGreaterThan(0);
    expect(open.retryAfter).toBeLessThanOrEqual(LONG_OPEN);
    expect(open.retryAt - Date.now()).toBeLessThanOrEqual(LONG_OPEN);
    expect(open.message).toMatch(/3 consecutive failures.*probe through in \d+ ms/);
    expect(server!.requests).toHaveLength(3);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ origin: server!.origin, from: 'closed', to: 'open', reason: '3 consecutive failures' });
    expect(changes[0]!.retryAt).toBeGreaterThan(Date.now());
  });

  it('half-opens after openDuration and closes when a probe succeeds', async () => {
    const { mode } = await switchable();
    const changes: CircuitStateChange[] = [];
    const c = breakerClient({ consecutiveFailures: 3, openDuration: 150 }, changes);
    for (let i = 0; i < 3; i++) await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    expect(transitions(changes)).toEqual(['closed->open']);
    mode.status = 200;
    await untilHalfOpen(c, 150);
    expect(await c.getJSON('x')).toEqual({ status: 200 });
    expect(c.circuitState()).toBe('closed');
    expect(transitions(changes)).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
    expect(server!.requests).toHaveLength(4);
  });

  it('half-open lets only halfOpenProbes attempts through; the rest are rejected until a probe answers', async () => {
    const held: (() => void)[] = [];
    let healthy = false;
    server = track(await startServer((_req, res) => {
      if (!healthy) return sendJSON(res, 503, {});
      // Hold each probe until the test has tried to send more.
      held.push(() => sendJSON(res, 200, { ok: true }));
    }));
    const changes: CircuitStateChange[] = [];
    const c = breakerClient({ consecutiveFailures: 1, openDuration: 50, halfOpenProbes: 2 }, changes);
    await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    expect(transitions(changes)).toEqual(['closed->open']);
    healthy = true;
    await untilHalfOpen(c, 50);

    const probes = [c.getJSON('p1'), c.getJSON('p2')];
    const extra = await Promise.all([c.get('e1').catch((e: unknown) => e), c.get('e2').catch((e: unknown) => e)]);
    for (const error of extra) {
      expect(error).toBeInstanceOf(CircuitOpenError);
      expect((error as CircuitOpenError).state).toBe('half-open');
    }
    while (held.length < 2) await new Promise((r) => setImmediate(r));
    expect(c.circuitState()).toBe('half-open');
    for (const release of held) release();
    expect(await Promise.all(probes)).toEqual([{ ok: true }, { ok: true }]);
    expect(server.requests.map((r) => r.url)).toEqual(['/x', '/p1', '/p2']);
    expect(transitions(changes)).toEqual(['closed->open', 'open->half-open', 'half-open->closed']);
  });

  it('a failed probe opens the circuit again for another openDuration', async () => {
    await switchable();
    const changes: CircuitStateChange[] = [];
    // openDuration is long enough that no stall between the failed probe and the next request outlasts it.
    const openDuration = 1500;
    const c = breakerClient({ consecutiveFailures: 2, openDuration }, changes);
    await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    await untilHalfOpen(c, openDuration);
    const probedAt = Date.now();
    await expect(c.get('x')).rejects.toMatchObject({ status: 500 });
    const again = await c.get('x').catch((e: unknown) => e);
    expect(again).toBeInstanceOf(CircuitOpenError);
    expect(server!.requests).toHaveLength(3);
    expect(transitions(changes)).toEqual(['closed->open', 'open->half-open', 'half-open->open']);
    expect(changes[2]!.reason).toBe('probe failed');
    // Open for a whole new openDuration from the failed probe on.
    expect(changes[2]!.retryAt).toBeGreaterThanOrEqual(probedAt + openDuration - 5);
  });

  it('opens on the failure ratio in the window even without a run of consecutive failures', async () => {
    let n = 0;
    server = track(await startServer((_req, res) => sendJSON(res, n++ % 2 === 0 ? 200 : 502, {})));
    const c = breakerClient({ consecutiveFailures: 100, failureRatio: 0.5, minimumRequests: 10, window: 10_000 }, [], { throwHttpErrors: false });
    for (let i = 0; i < 10; i++) {
      expect(c.circuitState()).toBe('closed');
      await c.get('x').then((r) => r.cancel());
    }
    expect(c.circuitState()).toBe('open');
    await expect(c.get('x')).rejects.toThrow(/5 of 10 attempts failed/);
    expect(server.requests).toHaveLength(10);
  });

  it('4xx answers, 429 included, do not count as failures', async () => {
    let n = 0;
    server = track(await startServer((_req, res) => sendJSON(res, n++ % 2 === 0 ? 404 : 429, {})));
    const c = breakerClient({ consecutiveFailures: 2, minimumRequests: 2 }, [], { pauseOnRetryAfter: false });
    for (let i = 0; i < 8; i++) await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
    expect(c.circuitState()).toBe('closed');
    expect(server.requests).toHaveLength(8);
  });

  it('timeouts on a hanging server count as failures', async () => {
    server = track(await startServer(() => undefined));
    const c = breakerClient({ consecutiveFailures: 2 }, [], { timeout: 300 });
    await expect(c.get('hang')).rejects.toBeInstanceOf(TimeoutError);
    await expect(c.get('hang')).rejects.toBeInstanceOf(TimeoutError);
    await expect(c.get('hang')).rejects.toBeInstanceOf(CircuitOpenError);
    // At most the two attempts that timed out (on a loaded machine one may time out before the server logs it).
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  it('keeps one circuit per origin', async () => {
    await switchable();
    const healthy = await startServer((_req, res) => sendJSON(res, 200, { ok: true }));
    try {
      const c = breakerClient({ consecutiveFailures: 1 });
      await expect(c.get('x')).rejects.toBeInstanceOf(HttpError);
      await expect(c.get('x')).rejects.toBeInstanceOf(CircuitOpenError);
      expect(await c.getJSON(`${healthy.origin}/y`)).toEqual({ ok: true });
      expect(c.circuitState(healthy.origin)).toBe('closed');
      expect(c.circuitState()).toBe('open');
    } finally {
      await healthy.close();
    }
  });

  it('with retries on, an opening circuit stops the retry loop instead of hammering the server', async () => {
    await switchable();
    client = track(createClient({
      baseURL: server!.origin,
      retry: { maxAttempts: 10, waitBase: 2 },
      circuitBreaker: { consecutiveFailures: 3, openDuration: 10_000 },
    }));
    await expect(client.get('x')).rejects.toBeInstanceOf(CircuitOpenError);
    expect(server!.requests).toHaveLength(3);
  });

  it('an observer that throws does not break requests', async () => {
    await switchable();
    client = track(createClient({ baseURL: server!.origin, retry: false, circuitBreaker: { consecutiveFailures: 1, onStateChange: () => { throw new Error('bad observer'); } } }));
    await expect(client.get('x')).rejects.toBeInstanceOf(HttpError);
    await expect(client.get('x')).rejects.toBeInstanceOf(CircuitOpenError);
  });
});

// Resilience lives above the transport seam: the body-failure path must work on both transports.
describe.each(transports)('circuitBreaker (%s transport)', (_name, makeTransport) => {
  it('connection resets, before the headers or in the middle of the body, count as failures', async () => {
    let n = 0;
    server = track(await startServer((req, res: ServerResponse) => {
      if (n++ === 0) return void req.socket.destroy();
      // Headers and half a body, then the connection drops.
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => req.socket.destroy());
    }));
    const transport = track(makeTransport());
    const c = breakerClient({ consecutiveFailures: 2 }, [], { transport });
    await expect(c.get('x')).rejects.toBeInstanceOf(NetworkError);
    expect(c.circuitState()).toBe('closed');
    await expect(c.getJSON('x')).rejects.toBeInstanceOf(NetworkError);
    expect(c.circuitState()).toBe('open');
    await expect(c.get('x')).rejects.toBeInstanceOf(CircuitOpenError);
    expect(server.requests).toHaveLength(2);
  });
});
