import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { createClient, type SluiceEvent } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();
const SECRETS = ['Bearer-s3cret', 'sessionid=c00kie', 'q-s3cret', 'pw-s3cret'];

function expectNoSecret(events: readonly SluiceEvent[]): void {
  const text = JSON.stringify(events);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('per-attempt events', () => {
  it('a request retried twice reports start, response and retry for each attempt, with no credential', async () => {
    let calls = 0;
    const s = track(await startServer((_req, res) => sendJSON(res, ++calls < 3 ? 503 : 200, { calls })));
    const events: SluiceEvent[] = [];
    const client = track(createClient({
      baseURL: s.origin, retry: { maxAttempts: 3, waitBase: 1 },
      headers: { authorization: 'Bearer Bearer-s3cret', cookie: 'sessionid=c00kie' }, onEvent: (e) => events.push(e),
    }));
    const response = await client.get('items', { query: { access_token: 'q-s3cret', page: 2 } });
    expect(response.status).toBe(200);
    await response.cancel();
    expect(events.map((e) => e.type)).toEqual([
      'request.start', 'request.response', 'retry.scheduled',
      'request.start', 'request.response', 'retry.scheduled',
      'request.start', 'request.response', 'request.end',
    ]);
    const url = `${s.origin}/items?access_token=[REDACTED]&page=2`;
    expect(events[0]).toEqual({ type: 'request.start', requestId: expect.any(Number), method: 'GET', url, attempt: 1, maxAttempts: 3 });
    expect(new Set(events.map((e) => 'requestId' in e && e.requestId))).toEqual(new Set([events[0]!.type === 'request.start' && events[0]!.requestId]));
    expect(events[8]).toMatchObject({ type: 'request.end', method: 'GET', url, status: 200 });
    expect(events[1]).toMatchObject({ type: 'request.response', method: 'GET', url, status: 503, attempt: 1, maxAttempts: 3 });
    expect(events[2]).toMatchObject({ type: 'retry.scheduled', reason: 'status 503', attempt: 1, maxAttempts: 3 });
    expect(events[5]).toMatchObject({ type: 'retry.scheduled', reason: 'status 503', attempt: 2 });
    expect(events[7]).toMatchObject({ type: 'request.response', status: 200, attempt: 3 });
    for (const e of events) if (e.type === 'request.response') expect(e.durationMs).toBeGreaterThanOrEqual(0);
    for (const e of events) if (e.type === 'retry.scheduled') expect(e.delayMs).toBeGreaterThan(0);
    expect(s.requests).toHaveLength(3);
    expectNoSecret(events);
  });

  it('a network error is reported as request.error and retried; a request that cannot be retried says 1 of 1', async () => {
    let calls = 0;
    const s = track(await startServer((req, res) => {
      if (++calls === 1) req.socket.destroy();
      else sendJSON(res, 200, {});
    }));
    const events: SluiceEvent[] = [];
    const client = track(createClient({ baseURL: s.origin, retry: { maxAttempts: 2, waitBase: 1 }, onEvent: (e) => events.push(e) }));
    await (await client.get('x?password=pw-s3cret')).cancel();
    expect(events.map((e) => e.type)).toEqual(['request.start', 'request.error', 'retry.scheduled', 'request.start', 'request.response', 'request.end']);
    expect(events[1]).toMatchObject({ errorType: 'NetworkError', attempt: 1, maxAttempts: 2 });
    expect(events[2]).toMatchObject({ reason: 'NetworkError' });
    events.length = 0;
    await (await client.post('x?password=pw-s3cret', { json: {} })).cancel();
    expect(events[0]).toMatchObject({ type: 'request.start', method: 'POST', attempt: 1, maxAttempts: 1 });
    expectNoSecret(events);
  });

  it('reports a redirect followed with both URLs redacted', async () => {
    const target = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const s = track(await startServer((_req, res) => {
      res.writeHead(302, { location: `http://user:pw-s3cret@127.0.0.1:${new URL(target.origin).port}/to?sig=q-s3cret` }).end();
    }));
    const events: SluiceEvent[] = [];
    const client = track(createClient({ baseURL: s.origin, onEvent: (e) => events.push(e) }));
    await (await client.get('from?token=q-s3cret')).cancel();
    expect(events.filter((e) => e.type === 'redirect.followed')).toEqual([{
      type: 'redirect.followed', method: 'GET', status: 302, from: `${s.origin}/from?token=[REDACTED]`, to: `${target.origin}/to?sig=[REDACTED]`,
    }]);
    expectNoSecret(events);
  });

  it('reports circuit state changes', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 500, {})));
    const events: SluiceEvent[] = [];
    const changes: string[] = [];
    const client = track(createClient({
      baseURL: s.origin, retry: false, onEvent: (e) => events.push(e),
      circuitBreaker: { consecutiveFailures: 2, openDuration: 60_000, onStateChange: (c) => changes.push(c.to) },
    }));
    await expect(client.get('a')).rejects.toMatchObject({ status: 500 });
    await expect(client.get('b')).rejects.toMatchObject({ status: 500 });
    await expect(client.get('c')).rejects.toMatchObject({ name: 'CircuitOpenError' });
    expect(changes).toEqual(['open']);
    expect(events.filter((e) => e.type === 'circuit.state')).toEqual([
      { type: 'circuit.state', origin: s.origin, from: 'closed', to: 'open', reason: expect.any(String) },
    ]);
    expect(events.at(-2)).toMatchObject({ type: 'request.error', errorType: 'CircuitOpenError' });
    expect(events.at(-1)).toMatchObject({ type: 'request.end', errorType: 'CircuitOpenError' });
    expect(events.filter((e) => e.type === 'request.end').map((e) => e.type === 'request.end' && e.status)).toEqual([500, 500, undefined]);
  });

  it('reports a wait for a rate-limit token', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    const events: SluiceEvent[] = [];
    const client = track(createClient({ baseURL: s.origin, rateLimit: { requestsPerSecond: 4, burst: 1 }, onEvent: (e) => events.push(e) }));
    const responses = await Promise.all([client.get('a'), client.get('b')]);
    for (const r of responses) await r.cancel();
    const waits = events.filter((e) => e.type === 'ratelimit.wait');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ origin: s.origin });
    expect(waits[0]!.type === 'ratelimit.wait' && waits[0]!.waitedMs).toBeGreaterThan(0);
  });
});
