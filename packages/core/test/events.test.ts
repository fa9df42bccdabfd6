import { afterEach, describe, expect, it } from 'vitest';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { createClient, EventSink, type Client, type SluiceEvent } from '@sluice/core';

const servers: TestServer[] = [];
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  for (const s of servers.splice(0)) await s.close();
  client = undefined;
});

describe('events', () => {
  it('reports an origin paused by Retry-After, with the cap applied', async () => {
    const s = await startServer((_req, res) => sendJSON(res, 429, {}, { 'retry-after': '99999999' }));
    servers.push(s);
    const events: SluiceEvent[] = [];
    client = createClient({ baseURL: s.origin, retry: false, pauseOnRetryAfter: { maxPause: 50 }, onEvent: (e) => events.push(e) });
    await expect(client.get('x')).rejects.toMatchObject({ status: 429 });
    expect(events.filter((e) => e.type === 'origin.paused')).toEqual([{ type: 'origin.paused', origin: s.origin, status: 429, pauseMs: 50, retryAfterMs: 99_999_999_000 }]);
  });

  it('listeners added later receive events until removed; a throwing listener does not fail the request', async () => {
    const s = await startServer((_req, res) => sendJSON(res, 503, {}, { 'retry-after': '1' }));
    servers.push(s);
    client = createClient({
      baseURL: s.origin, retry: false, pauseOnRetryAfter: { maxPause: 20 }, onEvent: () => { throw new Error('listener bug'); },
    });
    const seen: string[] = [];
    const off = client.events.on((e) => seen.push(e.type));
    await expect(client.get('a')).rejects.toMatchObject({ status: 503 });
    off();
    await expect(client.get('b')).rejects.toMatchObject({ status: 503 });
    expect(seen.filter((t) => t === 'origin.paused')).toEqual(['origin.paused']);
    expect(seen.filter((t) => t === 'request.start')).toHaveLength(1);
    expect(s.requests).toHaveLength(2);
  });

  it('a sink without listeners is disabled', () => {
    const sink = new EventSink();
    expect(sink.enabled).toBe(false);
    const off = sink.on(() => undefined);
    expect(sink.enabled).toBe(true);
    off();
    expect(sink.enabled).toBe(false);
  });
});
