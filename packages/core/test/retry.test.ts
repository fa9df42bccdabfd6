import { afterEach, describe, expect, it } from 'vitest';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, backoffDelay, createClient, HttpError, NetworkError, parseRetryAfter } from '@sluice/core';
import { transports } from './transports.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that answers `statuses` in turn (then 200), with optional headers per answer (a function: made as it answers). */
async function scripted(statuses: number[], headers: Record<string, string> | (() => Record<string, string>) = {}): Promise<TestServer> {
  let n = 0;
  server = await startServer((_req, res) => {
    const status = statuses[n++] ?? 200;
    sendJSON(res, status, { n }, status === 200 ? {} : typeof headers === 'function' ? headers() : headers);
  });
  return server;
}

const gaps = (s: TestServer): number[] => s.requests.slice(1).map((r, i) => r.at - s.requests[i]!.at);

describe.each(transports)('retry (%s transport)', (_name, makeTransport) => {
  const client = (s: TestServer, retry: object = {}) =>
    createClient({ baseURL: `${s.origin}/api`, transport: makeTransport(), retry: { maxAttempts: 3, waitBase: 20, ...retry } });

  it('retries a retryable status until it succeeds, within maxAttempts', async () => {
    const s = await scripted([503, 502]);
    expect(await client(s).getJSON('x')).toEqual({ n: 3 });
    expect(s.requests).toHaveLength(3);
  });

  it('makes at most maxAttempts attempts, then throws HttpError', async () => {
    const s = await scripted([503, 503, 503, 503, 503]);
    const error = await client(s).get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
    expect(s.requests).toHaveLength(3);
  });

  it('waits at least half the exponential backoff between attempts', async () => {
    const s = await scripted([500, 500, 500]);
    await client(s, { maxAttempts: 4, waitBase: 40 }).get('x');
    const [first, second, third] = gaps(s);
    expect(first).toBeGreaterThanOrEqual(20 - 2);
    expect(second).toBeGreaterThanOrEqual(40 - 2);
    expect(third).toBeGreaterThanOrEqual(80 - 2);
  });

  it('does not retry statuses outside retryableStatus', async () => {
    const s = await scripted([404]);
    await expect(client(s).get('x')).rejects.toThrow(HttpError);
    expect(s.requests).toHaveLength(1);
  });

  it('honours Retry-After in seconds', async () => {
    const s = await scripted([429], { 'retry-after': '1' });
    await client(s, { waitBase: 1 }).get('x');
    expect(gaps(s)[0]).toBeGreaterThanOrEqual(990);
  });

  it('honours Retry-After as an HTTP date', async () => {
    // The date 1.5 s after the answer, made as it answers: one made before the client's first request would leave
    // less than 0.5 s to wait when that request came late (a loaded machine) and the date rounded down.
    const s = await scripted([503], () => ({ 'retry-after': new Date(Date.now() + 1500).toUTCString() }));
    await client(s, { waitBase: 1 }).get('x');
    // HTTP dates have one-second resolution: the wait is at least 0.5 s and below 2 s.
    expect(gaps(s)[0]).toBeGreaterThanOrEqual(450);
    expect(gaps(s)[0]).toBeLessThan(2000);
  });

  it('gives the response back instead of waiting longer than maxWait', async () => {
    const s = await scripted([503], { 'retry-after': '3600' });
    await expect(client(s, { maxWait: 1000 }).get('x')).rejects.toMatchObject({ status: 503 });
    expect(s.requests).toHaveLength(1);
  });

  it('does not retry POST unless the caller says it is idempotent', async () => {
    const s = await scripted([503, 503]);
    await expect(client(s).post('x', { json: {} })).rejects.toThrow(HttpError);
    expect(s.requests).toHaveLength(1);
    await client(s).post('x', { json: { again: true }, idempotent: true });
    expect(s.requests.map((r) => r.body)).toEqual(['{}', '{"again":true}', '{"again":true}']);
  });

  it('does not retry a body that cannot be replayed', async () => {
    const s = await scripted([503]);
    async function* body() { yield new TextEncoder().encode('once'); }
    await expect(client(s).put('x', { body: body() })).rejects.toMatchObject({ status: 503 });
    expect(s.requests).toHaveLength(1);
    expect(s.requests[0]!.body).toBe('once');
  });

  it('retries network errors for idempotent requests', async () => {
    let n = 0;
    server = await startServer((req, res) => {
      if (n++ < 2) return void req.socket.destroy();
      sendJSON(res, 200, { ok: true });
    });
    expect(await client(server).getJSON('x')).toEqual({ ok: true });
    expect(n).toBe(3);
  });

  it('throws NetworkError with a code when the server cannot be reached', async () => {
    const closed = await startServer(() => undefined);
    await closed.close();
    const c = createClient({ baseURL: `${closed.origin}/api`, transport: makeTransport(), retry: { maxAttempts: 2, waitBase: 5 } });
    const error = await c.get('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).code).toBe('ECONNREFUSED');
  });

  it('an abort during the retry wait ends the request at once with AbortError', async () => {
    const s = await scripted([503], { 'retry-after': '30' });
    const controller = new AbortController();
    const pending = client(s, { maxWait: 60_000 }).get('x', { signal: controller.signal });
    while (s.requests.length === 0) await new Promise((r) => setImmediate(r));
    const started = performance.now();
    controller.abort(new Error('user gave up'));
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toMatchObject({ message: 'user gave up' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(s.requests).toHaveLength(1);
  });

  it('retry: false makes a single attempt', async () => {
    const s = await scripted([503]);
    await expect(client(s).get('x', { retry: false })).rejects.toThrow(HttpError);
    expect(s.requests).toHaveLength(1);
  });
});

describe('retry arithmetic', () => {
  it('backoff grows exponentially, stays within [half, all] of the step and respects maxWait', () => {
    const opts = { waitBase: 100, maxWait: 1000 };
    expect(backoffDelay(1, opts, () => 0)).toBe(50);
    expect(backoffDelay(1, opts, () => 1)).toBe(100);
    expect(backoffDelay(3, opts, () => 0)).toBe(200);
    expect(backoffDelay(10, opts, () => 1)).toBe(1000);
  });

  it('parses Retry-After seconds and dates and ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
