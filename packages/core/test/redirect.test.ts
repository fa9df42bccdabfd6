import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { ConfigError, createClient, RedirectError, type Plugin } from '@sluice/core';
import { transports } from './transports.js';

describe.each(transports)('redirects (%s transport)', (_name, makeTransport) => {
  let home: TestServer;
  let other: TestServer;
  beforeAll(async () => {
    other = await startServer((req, res) => sendJSON(res, 200, { at: 'other', headers: req.headers }));
    home = await startServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      const to = url.searchParams.get('to');
      if (url.pathname === '/api/loop') {
        res.writeHead(302, { location: '/api/loop' });
        return void res.end();
      }
      if (to) {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: to });
        return void res.end('moved');
      }
      sendJSON(res, 200, { at: 'home', path: url.pathname, method: req.method, headers: req.headers });
    });
  });
  afterAll(async () => {
    await home.close();
    await other.close();
  });

  const signer: Plugin = { name: 'signer', credentialHeaders: ['X-Signature'], onRequest: (r) => { r.headers['x-signature'] = 'sig-123'; } };
  const client = () => createClient({
    baseURL: `${home.origin}/api`,
    transport: makeTransport(),
    headers: { authorization: 'Bearer top-secret', cookie: 'sid=1', 'x-trace': 't' },
    plugins: [signer],
  });

  it('follows a same-origin redirect for GET and keeps credentials', async () => {
    const res = await client().get('start', { query: { to: '/api/final' } });
    const body = await res.json<{ at: string; path: string; headers: Record<string, string> }>();
    expect(body).toMatchObject({ at: 'home', path: '/api/final' });
    expect(body.headers.authorization).toBe('Bearer top-secret');
    expect(res.redirected).toBe(true);
    expect(res.url).toBe(`${home.origin}/api/final`);
  });

  it('drops Authorization, Cookie and plugin credentials when a redirect leaves the origin', async () => {
    const res = await client().get('start', { query: { to: `${other.origin}/landing`, status: '307' } });
    const body = await res.json<{ at: string; headers: Record<string, string> }>();
    expect(body.at).toBe('other');
    expect(body.headers.authorization).toBeUndefined();
    expect(body.headers.cookie).toBeUndefined();
    expect(body.headers['x-signature']).toBeUndefined();
    expect(body.headers['x-trace']).toBe('t');
  });

  it('sends default credentials only to the base origin, not to an absolute URL elsewhere', async () => {
    const body = await client().getJSON<{ at: string; headers: Record<string, string> }>(`${other.origin}/direct`);
    expect(body.at).toBe('other');
    expect(body.headers.authorization).toBeUndefined();
    expect(body.headers.cookie).toBeUndefined();
    expect(body.headers['x-trace']).toBe('t');
    const explicit = await client().getJSON<{ headers: Record<string, string> }>(`${other.origin}/direct`, { headers: { authorization: 'Bearer meant-for-other' } });
    expect(explicit.headers.authorization).toBe('Bearer meant-for-other');
  });

  it('does not follow redirects for POST: the 3xx is returned', async () => {
    const res = await client().post('start', { query: { to: '/api/final' }, json: {} });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/final');
    await res.cancel();
  });

  it('stops after maxRedirects with RedirectError', async () => {
    const c = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport(), maxRedirects: 3 });
    await expect(c.get('loop')).rejects.toThrow(RedirectError);
    expect(home.requests.filter((r) => r.url === '/api/loop')).toHaveLength(4);
  });

  it('refuses a redirect to another scheme', async () => {
    await expect(client().get('start', { query: { to: 'file:///etc/passwd' } })).rejects.toThrow(/unsupported scheme/);
  });

  it('returns redirects as they are when maxRedirects is 0', async () => {
    const c = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport(), maxRedirects: 0 });
    const res = await c.get('start', { query: { to: '/api/final' } });
    expect(res.status).toBe(302);
    await res.cancel();
  });

  it('a per-request maxRedirects: 0 returns the 303 as it is, Location unread, with or without plugins', async () => {
    const plain = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport() });
    const hooked = client();
    try {
      for (const c of [plain, hooked]) {
        const before = home.requests.length;
        const res = await c.get('start', { query: { to: `${other.origin}/result`, status: '303' }, maxRedirects: 0 });
        expect(res.status).toBe(303);
        expect(res.redirected).toBe(false);
        expect(res.headers.get('location')).toBe(`${other.origin}/result`);
        expect(await res.text()).toBe('moved');
        expect(home.requests.length - before).toBe(1);
      }
      expect(other.requests.filter((r) => r.url === '/result')).toHaveLength(0);
      // The client's own setting still applies to the next request.
      const followed = await plain.get('start', { query: { to: '/api/final', status: '303' } });
      expect(followed.redirected).toBe(true);
      await followed.cancel();
    } finally {
      await plain.close();
      await hooked.close();
    }
  });

  it('a per-request maxRedirects overrides the client\'s, both ways', async () => {
    const none = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport(), maxRedirects: 0 });
    const many = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport(), maxRedirects: 10 });
    try {
      const res = await none.get('start', { query: { to: '/api/final' }, maxRedirects: 1 });
      expect(res.status).toBe(200);
      expect(res.redirected).toBe(true);
      await res.cancel();
      const before = home.requests.filter((r) => r.url === '/api/loop').length;
      const error: unknown = await many.get('loop', { maxRedirects: 2 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedirectError);
      expect((error as Error).message).toMatch(/more than 2 redirects/);
      expect(home.requests.filter((r) => r.url === '/api/loop').length - before).toBe(3);
    } finally {
      await none.close();
      await many.close();
    }
  });

  it('refuses a per-request maxRedirects that is no integer >= 0 with a ConfigError, sending nothing', async () => {
    const c = createClient({ baseURL: `${home.origin}/api`, transport: makeTransport() });
    try {
      const before = home.requests.length;
      for (const bad of [-1, 1.5, Number.NaN, '3']) {
        const error: unknown = await c.get('start', { maxRedirects: bad as never }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(ConfigError);
        expect(error).toMatchObject({ option: 'maxRedirects' });
      }
      expect(home.requests.length).toBe(before);
    } finally {
      await c.close();
    }
  });
});
