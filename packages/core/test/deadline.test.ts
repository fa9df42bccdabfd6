import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { AbortError, ConfigError, createClient, DeadlineError, HttpError, TimeoutError, type Plugin } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';
import { transports } from './transports.js';

const track = closeAfterEach();
const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

describe.each(transports)('deadline: total time of a request (%s transport)', (_name, makeTransport) => {
  it('a server that never answers gives DeadlineError (a TimeoutError) at the deadline, not after timeout x attempts', async () => {
    const server = track(await startServer(() => undefined));
    const c = track(createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 60_000, retry: { maxAttempts: 3, waitBase: 10 } }));
    const error = await c.get('hang', { deadline: 200 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as DeadlineError).deadline).toBe(200);
    expect((error as Error).message).toContain('passed its deadline of 200 ms');
    // The deadline is never retried (under load the one attempt may not have reached the server yet).
    expect(server.requests.length).toBeLessThanOrEqual(1);
  });

  it('a retry whose wait would pass the deadline is not started: the last answer is returned', async () => {
    const server = track(await startServer((_req, res) => sendJSON(res, 503, { busy: true }, { 'retry-after': '5' })));
    const c = track(createClient({
      baseURL: `${server.origin}/api`, transport: makeTransport(), retry: { maxAttempts: 4, waitBase: 10 }, pauseOnRetryAfter: false,
    }));
    const error = await c.get('busy', { deadline: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(503);
    expect(server.requests.length).toBe(1);
  });

  it('a network failure is not retried when the backoff would pass the deadline', async () => {
    const server = track(await startServer((req) => void req.socket.destroy()));
    const c = track(createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), retry: { maxAttempts: 4, waitBase: 5000, maxWait: 10_000 } }));
    const error = await c.get('reset', { deadline: 1000 }).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DeadlineError);
    expect(server.requests.length).toBe(1);
  });

  it('retries that fit in the deadline still happen', async () => {
    let n = 0;
    const server = track(await startServer((_req, res) => (n++ < 2 ? sendJSON(res, 503, {}) : sendJSON(res, 200, { n }))));
    const c = track(createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), retry: { maxAttempts: 3, waitBase: 5 } }));
    expect(await c.getJSON('x', { deadline: 30_000 })).toEqual({ n: 3 });
  });

  it('the deadline bounds the body read too', async () => {
    const server = track(await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 60_000, retry: false }));
    const res = await c.get('x', { deadline: 300 });
    await expect(res.text()).rejects.toBeInstanceOf(DeadlineError);
  });

  it('a signal from AbortSignal.timeout() ends the request as a DeadlineError; a plain abort stays AbortError', async () => {
    const server = track(await startServer(() => undefined));
    const c = track(createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), timeout: 60_000, retry: false }));
    const error = await c.get('hang', { signal: AbortSignal.timeout(150) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeadlineError);
    expect((error as DeadlineError).deadline).toBeUndefined();
    const controller = new AbortController();
    const pending = c.get('hang', { signal: controller.signal, deadline: 60_000 }).catch((e: unknown) => e);
    controller.abort(new Error('user left'));
    const aborted = await pending;
    expect(aborted).toBeInstanceOf(AbortError);
    expect(aborted).not.toBeInstanceOf(DeadlineError);
  });
});

describe('deadline option', () => {
  it('a Date in the past fails at once without sending anything', async () => {
    const server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const c = track(createClient({ baseURL: `${server.origin}/api` }));
    await expect(c.get('x', { deadline: new Date(Date.now() - 1000) })).rejects.toBeInstanceOf(DeadlineError);
    expect(server.requests.length).toBe(0);
  });

  it('an absolute Date in the future bounds the request', async () => {
    const server = track(await startServer(() => undefined));
    const c = track(createClient({ baseURL: `${server.origin}/api`, timeout: 60_000 }));
    await expect(c.get('x', { deadline: new Date(Date.now() + 200) })).rejects.toBeInstanceOf(DeadlineError);
  });

  it('the client-level deadline applies to every request; deadline: false lifts it for one', async () => {
    const server = track(await startServer((req, res) => {
      if (req.url === '/api/slow') setTimeout(() => sendJSON(res, 200, { slow: true }), 400);
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api`, deadline: 150, timeout: 60_000, retry: false }));
    await expect(c.get('hang')).rejects.toBeInstanceOf(DeadlineError);
    expect(await c.getJSON('slow', { deadline: false })).toEqual({ slow: true });
  });

  it('a Retry-After pause of the origin is bounded by the deadline too', async () => {
    const server = track(await startServer((req, res) => {
      if (req.url === '/api/throttle') return sendJSON(res, 429, {}, { 'retry-after': '30' });
      sendJSON(res, 200, {});
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api` }));
    await c.get('throttle', { retry: false, throwHttpErrors: false });
    await expect(c.get('next', { deadline: 200 })).rejects.toBeInstanceOf(DeadlineError);
    expect(server.requests.length).toBe(1);
  });

  it('a plugin that reports the deadline as an AbortError gives a DeadlineError', async () => {
    const server = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const waitsForever: Plugin = {
      name: 'waits-for-a-token',
      onRequest: (req) => new Promise<void>((_resolve, reject) => {
        req.signal!.addEventListener('abort', () => reject(new AbortError(req.method, req.url, { cause: req.signal!.reason })), { once: true });
      }),
    };
    const c = track(createClient({ baseURL: `${server.origin}/api`, plugins: [waitsForever] }));
    await expect(c.get('x', { deadline: 150 })).rejects.toBeInstanceOf(DeadlineError);
    const controller = new AbortController();
    const pending = c.get('x', { signal: controller.signal, deadline: 60_000 });
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortError);
    expect(error).not.toBeInstanceOf(DeadlineError);
  });

  it('validates the option', async () => {
    expect(() => createClient({ deadline: 0 })).toThrow(ConfigError);
    expect(() => createClient({ deadline: new Date() as unknown as number })).toThrow(ConfigError);
    const c = createClient({ baseURL: 'http://127.0.0.1:9/api' });
    await expect(c.get('x', { deadline: -5 })).rejects.toBeInstanceOf(ConfigError);
    await c.close();
  });

  it('leaves no timer behind once the body is read', async () => {
    const server = track(await startServer((_req, res) => sendJSON(res, 200, { ok: true })));
    const c = track(createClient({ baseURL: `${server.origin}/api`, deadline: 60_000 }));
    await c.getJSON('warm');
    const before = timers();
    for (let i = 0; i < 20; i++) await c.getJSON('x');
    await (await c.head('x')).body[Symbol.asyncIterator]().next();
    expect(timers()).toBeLessThanOrEqual(before);
  });
});
