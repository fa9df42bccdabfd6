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
    const s = await throttling(429, '2');
    const other = await startServer((_req, res) => sendJSON(res, 200, { other: true }));
    servers.push(other);
    client = createClient({ baseURL: s.origin, retry: false });
    await expect(client.get('first')).rejects.toMatchObject({ status: 429 });
    // Another origin is not paused: its answer comes while this origin's callers still wait.
    let pausedSentWhenOtherAnswered = -1;
    const [second, third, elsewhere] = await Promise.all([
      client.getJSON('second'), client.getJSON('third'),
      client.getJSON(`${other.origin}/x`).then((v) => { pausedSentWhenOtherAnswered = s.requests.length - 1; return v; }),
    ]);
    expect(elsewhere).toEqual({ other: true });
    expect(pausedSentWhenOtherAnswered).toBe(0);
    expect(second).toEqual({ ok: true });
    expect(third).toEqual({ ok: true });
    const [first, ...later] = s.requests.map((r) => r.at);
    for (const at of later) expect(at - first!).toBeGreaterThanOrEqual(2000 - 15);
  });

  it('a 503 pause is capped at maxPause', async () => {
    const s = await throttling(503, '3600');
    client = createClient({ baseURL: s.origin, retry: false, pauseOnRetryAfter: { maxPause: 150 } });
    await expect(client.get('first')).rejects.toBeInstanceOf(HttpError);
    await client.getJSON('second');
    const gap = s.requests[1]!.at - s.requests[0]!.at;
    expect(gap).toBeGreaterThanOrEqual(150 - 5);
    // Far below the hour the server asked for (a bound no stall of a loaded machine reaches).
    expect(gap).toBeLessThan(10_000);
  });

  it('pauseOnRetryAfter: false sends at once', async () => {
    const s = await throttling(503, '3600');
    client = createClient({ baseURL: s.origin, retry: false, pauseOnRetryAfter: false });
    await expect(client.get('first')).rejects.toBeInstanceOf(HttpError);
    await client.getJSON('second');
    // Without the option the second request would wait maxPause (60 s by default).
    expect(s.requests[1]!.at - s.requests[0]!.at).toBeLessThan(10_000);
  });

  it('aborting a request that waits out a pause ends it at once, without sending', async () => {
    const s = await throttling(429, '60');
    client = createClient({ baseURL: s.origin, retry: false });
    await expect(client.get('first')).rejects.toMatchObject({ status: 429 });
    const controller = new AbortController();
    const waiting = client.get('second', { signal: controller.signal }).catch((e: unknown) => e);
    await new Promise((r) => setImmediate(r));
    // The pause lasts 60 s, longer than the test may run: only the abort can end the wait.
    controller.abort();
    expect(await waiting).toBeInstanceOf(AbortError);
    expect(s.requests).toHaveLength(1);
  });
});
