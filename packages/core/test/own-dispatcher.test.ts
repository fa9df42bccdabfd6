// UndiciTransport with a dispatcher of the application's own: undici's Agent is accepted as UndiciDispatcher
// (the option's type is structural, so @sluice/core's declarations do not load undici's), requests go
// through it, and the transport leaves it open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { startServer, type TestServer } from '@sluice/testkit';
import { ConfigError, createClient, UndiciTransport, type UndiciDispatcher } from '@sluice/core';

let server: TestServer;
beforeAll(async () => {
  server = await startServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ path: req.url }));
  });
});
afterAll(() => server.close());

describe('a dispatcher of your own', () => {
  it('carries the requests and stays open when the client closes', async () => {
    const agent = new Agent({ connections: 1 });
    const origins: string[] = [];
    agent.on('connect', (origin) => origins.push(String(origin)));
    const dispatcher: UndiciDispatcher = agent;
    const client = createClient({ baseURL: server.origin, transport: new UndiciTransport({ dispatcher }) });
    expect(await client.getJSON('/a')).toEqual({ path: '/a' });
    expect(origins).toEqual([`${server.origin}/`]);
    await client.close();
    expect(agent.closed).toBe(false);
    const res = await agent.request({ origin: server.origin, path: '/b', method: 'GET' });
    expect(await res.body.json()).toEqual({ path: '/b' });
    await agent.close();
  });

  it('cannot be combined with proxy or tls', () => {
    const agent = new Agent();
    expect(() => new UndiciTransport({ dispatcher: agent, proxy: false })).toThrow(ConfigError);
    expect(() => new UndiciTransport({ dispatcher: agent, tls: {} })).toThrow(/tls cannot be combined with dispatcher/);
    void agent.close();
  });
});
