import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, createClient, RateLimitError, SluiceError, UndiciTransport, type Client, type RateLimiter, type Transport } from '@sluice/core';

let server: TestServer | undefined;
let client: Client | undefined;
let transport: UndiciTransport | undefined;
const track = closeAfterEach();

/** Most events inside any window of `ms` that starts at an event. */
function maxInWindow(times: number[], ms: number): number {
  let best = 0;
  for (let i = 0; i < times.length; i++) {
    let n = 0;
    for (let j = i; j < times.length && times[j]! - times[i]! < ms; j++) n++;
    best = Math.max(best, n);
  }
  return best;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('rateLimit (token bucket)', () => {
  it('never sends more than rate + burst requests in any second, nor bursts above the bucket', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, { ok: true })));
    // Open the pool's sockets first, so that connection set-up cannot delay the burst at the server.
    transport = track(new UndiciTransport());
    const warm = createClient({ baseURL: server.origin, transport });
    await Promise.all(Array.from({ length: 5 }, () => warm.getJSON('warm-up')));
    server.requests.length = 0;
    // Tokens 100 ms apart: scheduling jitter on this shared machine cannot squeeze an extra one into a window.
    // Send times are taken where the client hands an attempt to the transport: the server's arrival times
    // bunch up when this (shared, loaded) process stalls, which says nothing about the limiter.
    const times: number[] = [];
    const real = transport;
    const timed: Transport = {
      send: (request) => {
        times.push(performance.now());
        return real.send(request);
      },
      close: () => real.close(),
      defaultHeaders: real.defaultHeaders,
    };
    client = track(createClient({ baseURL: server.origin, transport: timed, rateLimit: { requestsPerSecond: 10, burst: 3 } }));
    const started = performance.now();
    await Promise.all(Array.from({ length: 15 }, (_, i) => client!.getJSON(`r/${i}`)));
    const elapsed = performance.now() - started;
    expect(times).toHaveLength(15);
    expect(server.requests).toHaveLength(15);
    expect(maxInWindow(times, 1000)).toBeLessThanOrEqual(10 + 3);
    // 300 ms hold at most the 3 of the bucket plus 3 refills.
    expect(maxInWindow(times, 300)).toBeLessThanOrEqual(3 + 3);
    // 12 tokens beyond the burst need 12 / 10 s.
    expect(elapsed).toBeGreaterThanOrEqual(1200 - 30);
  });

  it('every retry takes a token as well', async () => {
    const seen = new Set<string>();
    server = track(await startServer((req, res) => {
      // Each path fails once with 503, then succeeds.
      if (!seen.has(req.url!)) {
        seen.add(req.url!);
        return sendJSON(res, 503, {});
      }
      sendJSON(res, 200, {});
    }));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: 20, burst: 1 }, retry: { waitBase: 1, maxAttempts: 2 } }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => client!.getJSON(`r/${i}`)));
    const times = server.requests.map((r) => r.at);
    expect(times).toHaveLength(12);
    expect(maxInWindow(times, 300)).toBeLessThanOrEqual(1 + 6);
    expect(times.at(-1)! - times[0]!).toBeGreaterThanOrEqual(11 * 50 - 30);
  });

  it('failFast rejects with RateLimitError at once, saying when a token frees up, and sends nothing', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: 1, burst: 1, failFast: true } }));
    await client.getJSON('a');
    const error = await client.getJSON('b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).reason).toBe('no-token');
    expect((error as RateLimitError).retryAfter).toBeGreaterThan(0);
    expect((error as RateLimitError).retryAfter).toBeLessThanOrEqual(1000);
    expect(server.requests).toHaveLength(1);
  });

  it('a request can ask to fail fast on a client that waits', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: 1, burst: 1 } }));
    await client.getJSON('a');
    await expect(client.getJSON('b', { failFast: true })).rejects.toMatchObject({ name: 'RateLimitError', reason: 'no-token' });
    expect(server.requests).toHaveLength(1);
  });

  it('a full queue rejects at once; aborting a waiter frees its place immediately; close() rejects the rest', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: 1, burst: 1, maxQueue: 1 } }));
    await client.getJSON('first');
    const controller = new AbortController();
    const waiting = client.get('second', { signal: controller.signal }).catch((e: unknown) => e);
    await expect(client.get('third')).rejects.toMatchObject({ name: 'RateLimitError', reason: 'queue-full' });

    const abortedAt = performance.now();
    controller.abort(new Error('caller gave up'));
    const aborted = await waiting;
    expect(aborted).toBeInstanceOf(AbortError);
    expect(performance.now() - abortedAt).toBeLessThan(200);

    // The freed place takes a new waiter instead of rejecting it.
    let settled = false;
    const fourth = client.get('fourth').catch((e: unknown) => e).finally(() => { settled = true; });
    await tick();
    await tick();
    expect(settled).toBe(false);
    await client.close();
    const closed = await fourth;
    expect(closed).toBeInstanceOf(SluiceError);
    expect((closed as Error).message).toMatch(/closed/);
    expect(server.requests.map((r) => r.url)).toEqual(['/first']);
  });

  it('an already aborted signal never enters the queue', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: 1, burst: 1, maxQueue: 1 } }));
    await client.getJSON('first');
    await expect(client.get('x', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    const controller = new AbortController();
    const queued = client.get('y', { signal: controller.signal }).catch((e: unknown) => e);
    await tick();
    controller.abort();
    expect(await queued).toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(1);
  });
});

describe('a rate limiter of the caller\'s own', () => {
  it('is asked for a permit on every attempt, and its refusal fails the request without sending', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, { ok: true })));
    let permits = 0;
    let closedWith: unknown;
    const limiter: RateLimiter = {
      take(_signal, failFast) {
        permits++;
        if (permits === 2) return new Promise((resolve) => setImmediate(resolve));
        if (permits === 3 && failFast === true) throw new RateLimitError('no-token', 100, 'shared');
        return undefined;
      },
      close(reason) { closedWith = reason; },
    };
    const client = createClient({ baseURL: s.origin, rateLimit: limiter });
    await client.getJSON('a');
    await client.getJSON('b');
    await expect(client.get('c', { failFast: true })).rejects.toBeInstanceOf(RateLimitError);
    expect(s.requests.map((r) => r.url)).toEqual(['/a', '/b']);
    await client.close();
    expect(closedWith).toBeInstanceOf(Error);
  });
});
