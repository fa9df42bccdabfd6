import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { createClient, RedirectError, type Plugin } from '@sluice/core';
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
});
