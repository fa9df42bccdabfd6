import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, createClient, RateLimitError, sleep, SluiceError, UndiciTransport, type Client, type RateLimiter, type Transport } from '@sluice/core';

let server: TestServer | undefined;
let client: Client | undefined;
let transport: UndiciTransport | undefined;
const track = closeAfterEach();

/**
 * A transport that notes when the client hands it each attempt (after the limiter let it go), over `real`.
 * The server's arrival times are not used: they bunch up when this shared, loaded process stalls.
 */
function timedTransport(real: Transport): { transport: Transport; times: number[] } {
  const times: number[] = [];
  const transport: Transport = {
    send: (request) => {
      times.push(performance.now());
      return real.send(request);
    },
    close: () => real.close(),
    defaultHeaders: real.defaultHeaders,
  };
  return { transport, times };
}

/**
 * Sends that ran ahead of a token bucket of `burst` and `perSecond` that was full at `from`: the k-th
 * send (from 1) may not leave before `from + (k - burst) / perSecond`. A stall of this process only
 * delays sends, so unlike counting sends per window this holds on any machine, however loaded. 2 ms
 * cover timer and clock rounding (a fiftieth of a token at 10/s).
 */
function aheadOfBucket(times: readonly number[], from: number, burst: number, perSecond: number): string[] {
  return times.flatMap((t, i) => {
    const earliest = from + ((i + 1 - burst) * 1000) / perSecond;
    return t < earliest - 2 ? [`send ${i + 1} at +${(t - from).toFixed(1)} ms, before +${(earliest - from).toFixed(1)} ms`] : [];
  });
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** A rate whose next token is 100 s away: no stall of a loaded machine hands one out during a test. */
const SLOW = 0.01;

// The limiter's sliding-window arithmetic is checked with a manual clock in resilience-units.test.ts;
// these tests check the client with real time, asserting only what a slow, shared machine cannot break.
describe('rateLimit (token bucket)', () => {
  it('never lets requests run ahead of rate + burst, and refills no more than the bucket after a pause', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, { ok: true })));
    // Open the pool's sockets first, so that connection set-up cannot delay the burst at the server.
    transport = track(new UndiciTransport());
    const warm = createClient({ baseURL: server.origin, transport });
    await Promise.all(Array.from({ length: 5 }, () => warm.getJSON('warm-up')));
    server.requests.length = 0;
    const { transport: timed, times } = timedTransport(transport);
    const created = performance.now();
    client = track(createClient({ baseURL: server.origin, transport: timed, rateLimit: { requestsPerSecond: 10, burst: 3 } }));
    await Promise.all(Array.from({ length: 15 }, (_, i) => client!.getJSON(`r/${i}`)));
    expect(times).toHaveLength(15);
    expect(server.requests).toHaveLength(15);
    // 3 at once, then one per 100 ms: 12 tokens beyond the burst need 1.2 s.
    expect(aheadOfBucket(times, created, 3, 10)).toEqual([]);
    expect(times.at(-1)! - created).toBeGreaterThanOrEqual(1200 - 2);

    // Idle for half a second: an uncapped bucket would hold 5 tokens now; this one holds its burst of 3.
    await sleep(500);
    const resumed = performance.now();
    const before = times.length;
    await Promise.all(Array.from({ length: 6 }, (_, i) => client!.getJSON(`s/${i}`)));
    expect(aheadOfBucket(times.slice(before), resumed, 3, 10)).toEqual([]);
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
    transport = track(new UndiciTransport());
    const { transport: timed, times } = timedTransport(transport);
    const created = performance.now();
    client = track(createClient({ baseURL: server.origin, transport: timed, rateLimit: { requestsPerSecond: 20, burst: 1 }, retry: { waitBase: 1, maxAttempts: 2 } }));
    await Promise.all(Array.from({ length: 6 }, (_, i) => client!.getJSON(`r/${i}`)));
    expect(server.requests).toHaveLength(12);
    expect(times).toHaveLength(12);
    // 12 attempts, one token each: the last leaves no earlier than 11 / 20 s after the start.
    expect(aheadOfBucket(times, created, 1, 20)).toEqual([]);
  });

  it('failFast rejects with RateLimitError at once, saying when a token frees up, and sends nothing', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: SLOW, burst: 1, failFast: true } }));
    await client.getJSON('a');
    const error = await client.getJSON('b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).reason).toBe('no-token');
    expect((error as RateLimitError).retryAfter).toBeGreaterThan(0);
    expect((error as RateLimitError).retryAfter).toBeLessThanOrEqual(100_000);
    expect(server.requests).toHaveLength(1);
  });

  it('a request can ask to fail fast on a client that waits', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: SLOW, burst: 1 } }));
    await client.getJSON('a');
    await expect(client.getJSON('b', { failFast: true })).rejects.toMatchObject({ name: 'RateLimitError', reason: 'no-token' });
    expect(server.requests).toHaveLength(1);
  });

  it('a full queue rejects at once; aborting a waiter frees its place immediately; close() rejects the rest', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: SLOW, burst: 1, maxQueue: 1 } }));
    await client.getJSON('first');
    const controller = new AbortController();
    const waiting = client.get('second', { signal: controller.signal }).catch((e: unknown) => e);
    await expect(client.get('third')).rejects.toMatchObject({ name: 'RateLimitError', reason: 'queue-full' });

    // The next token is 100 s away: the waiter settles now only because the abort took it out of the queue.
    controller.abort(new Error('caller gave up'));
    const aborted = await waiting;
    expect(aborted).toBeInstanceOf(AbortError);

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
    client = track(createClient({ baseURL: server.origin, rateLimit: { requestsPerSecond: SLOW, burst: 1, maxQueue: 1 } }));
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
