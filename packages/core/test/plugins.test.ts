import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { createClient, HttpError, type Plugin } from '@sluice/core';
import { transports } from './transports.js';

describe.each(transports)('plugins (%s transport)', (_name, makeTransport) => {
  let server: TestServer;
  const validToken = 'token-1';
  beforeAll(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/api/always-401') return sendJSON(res, 401, { error: 'nope' });
      if (req.headers.authorization !== `Bearer ${validToken}`) return sendJSON(res, 401, { error: 'invalid_token' });
      sendJSON(res, 200, { ok: true, order: req.headers['x-order'] });
    });
  });
  afterAll(() => server.close());

  /** A tiny bearer plugin: renews its token on 401 and asks for one resend. */
  function bearer(log: string[]): Plugin {
    let token = 'stale';
    return {
      name: 'bearer',
      onRequest(req) {
        log.push(`request:${req.resends}`);
        req.headers.authorization = `Bearer ${token}`;
      },
      onResponse(res) {
        log.push(`response:${res.status}`);
        if (res.status !== 401) return undefined;
        token = validToken;
        return 'resend';
      },
    };
  }

  it('runs onRequest hooks in order, before sending', async () => {
    const first: Plugin = { name: 'a', onRequest: (r) => { r.headers['x-order'] = 'a'; } };
    const second: Plugin = { name: 'b', onRequest: (r) => { r.headers['x-order'] += ',b'; } };
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), plugins: [first, second], headers: { authorization: `Bearer ${validToken}` } });
    expect(await c.getJSON('x')).toEqual({ ok: true, order: 'a,b' });
  });

  it('lets a plugin renew a credential and resend once after 401', async () => {
    const log: string[] = [];
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), plugins: [bearer(log)] });
    expect(await c.getJSON('x')).toEqual({ ok: true });
    expect(log).toEqual(['request:0', 'response:401', 'request:1', 'response:200']);
  });

  it('a second 401 reaches the caller as HttpError: one resend per plugin', async () => {
    const log: string[] = [];
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), plugins: [bearer(log)] });
    const before = server.requests.length;
    const error = await c.get('always-401').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(401);
    expect(server.requests.length - before).toBe(2);
  });

  it('passes the request context to plugins', async () => {
    const seen: unknown[] = [];
    const probe: Plugin = { name: 'probe', onRequest: (r) => { seen.push(r.context.tag); } };
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), plugins: [probe], throwHttpErrors: false });
    await (await c.get('x', { context: { tag: 'mine' } })).cancel();
    expect(seen).toEqual(['mine']);
  });

  it('calls setup once and close on client.close(), and finds plugins by name', async () => {
    const calls: string[] = [];
    const p: Plugin = { name: 'life', setup: () => { calls.push('setup'); }, close: () => { calls.push('close'); } };
    const c = createClient({ baseURL: `${server.origin}/api`, transport: makeTransport(), plugins: [p] });
    expect(c.plugin('life')).toBe(p);
    await c.close();
    await c.close();
    expect(calls).toEqual(['setup', 'close']);
  });
});
