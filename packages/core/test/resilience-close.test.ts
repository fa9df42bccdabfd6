import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { createClient, SluiceError } from '@sluice/core';

const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe('close() with resilience on', () => {
  it('rejects every waiting request and leaves no timers or sockets behind', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/throttle') return sendJSON(res, 429, {}, { 'retry-after': '30' });
      if (req.url === '/storm') return sendJSON(res, 503, {});
      sendJSON(res, 200, { ok: true });
    });
    const other = await startServer((_req, res) => sendJSON(res, 200, {}));
    try {
      const before = timers();
      const client = createClient({
        baseURL: server.origin,
        rateLimit: { requestsPerSecond: 0.01, burst: 2 }, // after the burst, one token per 100 s: the waiters cannot finish before close()
        circuitBreaker: true,
        bulkhead: { maxConcurrent: 10 },
        retry: { maxAttempts: 5, waitBase: 10_000, maxWait: 60_000 },
      });
      await client.getJSON('ok');
      await client.get('throttle', { retry: false }).catch(() => undefined);
      const pending = [
        client.get('paused'), // waits out the Retry-After pause
        client.get(`${other.origin}/limited`), // waits for a rate-limit token
        client.get(`${other.origin}/limited-too`),
      ].map((p) => p.catch((e: unknown) => e));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      expect(timers()).toBeGreaterThan(before);
      await client.close();
      const results = await Promise.all(pending);
      for (const result of results) {
        expect(result).toBeInstanceOf(SluiceError);
        expect((result as Error).message).toBe('The client is closed');
      }
      expect(timers()).toBeLessThanOrEqual(before);
      // The server side sees every connection of the client closed.
      const open = (): Promise<number> => new Promise((resolve, reject) => server.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
      while ((await open()) > 0) await new Promise((r) => setImmediate(r));
      expect(await open()).toBe(0);
    } finally {
      await other.close();
      await server.close();
    }
  });

  it('a retry wait ends at once when the client closes', async () => {
    const server = await startServer((_req, res) => sendJSON(res, 503, {}));
    try {
      const before = timers();
      // The retry wait (60 s or more) outlasts the test: only the close can end it.
      const client = createClient({ baseURL: server.origin, retry: { maxAttempts: 3, waitBase: 60_000, maxWait: 120_000 } });
      const pending = client.get('x').catch((e: unknown) => e);
      while (server.requests.length === 0) await new Promise((r) => setImmediate(r));
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      await client.close();
      const error = await pending;
      expect(error).toBeInstanceOf(SluiceError);
      expect((error as Error).message).toBe('The client is closed');
      expect(timers()).toBeLessThanOrEqual(before);
    } finally {
      await server.close();
    }
  });
});
