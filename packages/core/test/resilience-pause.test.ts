import { afterEach, describe, expect, it } from 'vitest';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, createClient, HttpError, type Client } from '@sluice/core';

const servers: TestServer[] = [];
let client: Client | undefined;
afterEach(async () => {
  await client?.close();
  for (const s of servers.splice(0)) await s.close();
  client = undefined;
});

/** Answers the first request with `status` and `retry-after`, then 200. */
async function throttling(status: number, retryAfter: string): Promise<TestServer> {
  let n = 0;
  const s = await startServer((_req, res) => {
    if (n++ === 0) return sendJSON(res, status, {}, { 'retry-after': retryAfter });
    sendJSON(res, 200, { ok: true });
  });
  servers.push(s);
  return s;
}

describe('pause on Retry-After', () => {
  it('a 429 with Retry-After holds back every caller of the client, not only the one that got it', async () => {
    const s = await throttling(429, '1');
    const other = await startServer((_req, res) => sendJSON(res, 200, { other: true }));
    servers.push(other);
    client = createClient({ baseURL: s.origin, retry: false });
    await expect(client.get('first')).rejects.toMatchObject({ status: 429 });
    const startedOther = performance.now();
    const [second, third, elsewhere] = await Promise.all([
      client.getJSON('second'), client.getJSON('third'), client.getJSON(`${other.origin}/x`).then((v) => [v, performance.now() - startedOther] as const),
    ]);
    expect(second).toEqual({ ok: true });
    expect(third).toEqual({ ok: true });
    const [first, ...later] = s.requests.map((r) => r.at);
    for (const at of later) expect(at - first!).toBeGreaterThanOrEqual(1000 - 15);
    // Another origin is not paused.
    expect(elsewhere[1]).toBeLessThan(500);
  });

  it('a 503 pause is capped at maxPause', async () => {
    const s = await throttling(503, '3600');
    client = createClient({ baseURL: s.origin, retry: false, pauseOnRetryAfter: { maxPause: 150 } });
    await expect(client.get('first')).rejects.toBeInstanceOf(HttpError);
    await client.getJSON('second');
    const gap = s.requests[1]!.at - s.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(150 - 5);
    expect(gap).toBeLessThan(1000);
  });

  it('pauseOnRetryAfter: false sends at once', async () => {
    const s = await throttling(503, '3600');
    client = createClient({ baseURL: s.origin, retry: false, pauseOnRetryAfter: false });
    await expect(client.get('first')).rejects.toBeInstanceOf(HttpError);
    await client.getJSON('second');
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeLessThan(100);
  });

  it('aborting a request that waits out a pause ends it at once, without sending', async () => {
    const s = await throttling(429, '30');
    client = createClient({ baseURL: s.origin, retry: false });
    await expect(client.get('first')).rejects.toMatchObject({ status: 429 });
    const controller = new AbortController();
    const waiting = client.get('second', { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    const abortedAt = performance.now();
    controller.abort();
    expect(await waiting).toBeInstanceOf(AbortError);
    expect(performance.now() - abortedAt).toBeLessThan(200);
    expect(s.requests).toHaveLength(1);
  });
});
