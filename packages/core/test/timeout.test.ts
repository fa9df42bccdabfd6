import { afterEach, describe, expect, it } from 'vitest';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, createClient, TimeoutError } from '@sluice/core';
import { transports } from './transports.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.each(transports)('timeout and cancellation (%s transport)', (_name, makeTransport) => {
  it('a server that never answers gives TimeoutError after the timeout', async () => {
    server = await startServer(() => undefined);
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 150, retry: false });
    const started = performance.now();
    const error = await c.get('hang').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeout).toBe(150);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('the timeout bounds each attempt, and timeouts are retried', async () => {
    let n = 0;
    server = await startServer((_req, res) => {
      if (n++ === 0) return; // the first attempt hangs
      sendJSON(res, 200, { attempt: n });
    });
    // Wide enough that the answered second attempt never times out on a loaded machine.
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 1_000, retry: { maxAttempts: 2, waitBase: 10 } });
    expect(await c.getJSON('x')).toEqual({ attempt: 2 });
  });

  it('a body that stalls longer than the timeout fails with TimeoutError while reading', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 150, retry: false });
    const res = await c.get('x');
    await expect(res.json()).rejects.toBeInstanceOf(TimeoutError);
  });

  it('a body that keeps flowing is not cut by the timeout', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      let n = 0;
      const timer = setInterval(() => {
        res.write('.');
        if (++n === 8) {
          clearInterval(timer);
          res.end();
        }
      }, 100);
    });
    // The body takes ~800 ms in all, longer than the timeout, but no gap comes near it (a loaded machine
    // stretches gaps: 100 ms apart leaves a wide margin under 600 ms).
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 600, retry: false });
    expect(await (await c.get('x')).text()).toBe('........');
  });

  it('aborting gives AbortError, not TimeoutError, with the reason as cause', async () => {
    server = await startServer(() => undefined);
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 5000 });
    const controller = new AbortController();
    const pending = c.get('x', { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setImmediate(r));
    controller.abort('stop');
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect((error as AbortError).cause).toBe('stop');
  });

  it('an already aborted signal sends nothing', async () => {
    server = await startServer((_req, res) => sendJSON(res, 200, {}));
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport() });
    await expect(c.get('x', { signal: AbortSignal.abort() })).rejects.toBeInstanceOf(AbortError);
    expect(server.requests).toHaveLength(0);
  });

  it('aborting while the body streams stops the stream with AbortError', async () => {
    server = await startServer((_req, res) => {
      res.writeHead(200);
      res.write('first');
    });
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 5000 });
    const controller = new AbortController();
    const res = await c.get('x', { signal: controller.signal });
    const chunks: string[] = [];
    const error = await (async () => {
      for await (const chunk of res.body) {
        chunks.push(Buffer.from(chunk).toString());
        controller.abort();
      }
    })().catch((e: unknown) => e);
    expect(chunks).toEqual(['first']);
    expect(error).toBeInstanceOf(AbortError);
  });

  it('a per-request timeout overrides the client default', async () => {
    server = await startServer(() => undefined);
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 60_000, retry: false });
    await expect(c.get('x', { timeout: 100 })).rejects.toMatchObject({ timeout: 100 });
  });
});
