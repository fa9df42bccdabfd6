import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { startServer, sendJSON, type RecordedRequest, type TestServer } from '@sluice/testkit';
import { createClient, HttpError, type Client, type ClientOptions } from '@sluice/core';

let server: TestServer | undefined;
let client: Client | undefined;
const track = closeAfterEach();

const OFFERED = 40;
const RETRY = { maxAttempts: 4, waitBase: 20, maxWait: 1000 };

/** A 503 storm: every request fails. Sends OFFERED requests at once, each tagged with an id. */
async function storm(options: ClientOptions): Promise<RecordedRequest[]> {
  server = track(await startServer((_req, res) => sendJSON(res, 503, { down: true })));
  client = track(createClient({ baseURL: server.origin, retry: RETRY, ...options }));
  const results = await Promise.all(
    Array.from({ length: OFFERED }, (_, i) => client!.get('orders', { headers: { 'x-request-id': String(i) } }).catch((e: unknown) => e)),
  );
  for (const result of results) expect(result).toBeInstanceOf(HttpError);
  return server.requests;
}

/** Attempts of each request, by the id header. */
function byRequest(requests: RecordedRequest[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of requests) {
    const id = String(r.headers['x-request-id']);
    out.set(id, [...(out.get(id) ?? []), r.at]);
  }
  return out;
}

/** No two attempts of one request closer than the smallest backoff allows (half the exponential step). */
function expectBackoffRespected(requests: RecordedRequest[]): number {
  let checked = 0;
  for (const times of byRequest(requests).values()) {
    for (let n = 1; n < times.length; n++) {
      const floor = (RETRY.waitBase * 2 ** (n - 1)) / 2;
      expect(times[n]! - times[n - 1]!).toBeGreaterThanOrEqual(floor - 2);
      checked++;
    }
  }
  return checked;
}

describe('retry budget during a 503 storm', () => {
  it('the server sees at most (1 + ratio) times the offered load, and retries keep their backoff', async () => {
    const requests = await storm({ retryBudget: { ratio: 0.2, minRetriesPerSecond: 0 } });
    expect(requests.length).toBeLessThanOrEqual(OFFERED * 1.2);
    // The budget was spent, not hoarded: some retries did happen.
    expect(requests.length).toBeGreaterThan(OFFERED);
    expect(byRequest(requests).size).toBe(OFFERED);
    expect(expectBackoffRespected(requests)).toBe(requests.length - OFFERED);
  });

  it('the floor of minRetriesPerSecond adds a constant, not a multiple', async () => {
    const requests = await storm({ retryBudget: { ratio: 0, minRetriesPerSecond: 1, window: 5000 } });
    // 1 retry/s over a 5 s window: 5 retries in all.
    expect(requests.length).toBe(OFFERED + 5);
  });

  it('without a budget the same storm costs maxAttempts times the load (the storm the budget prevents)', async () => {
    const requests = await storm({ retryBudget: false });
    expect(requests.length).toBe(OFFERED * RETRY.maxAttempts);
    expect(expectBackoffRespected(requests)).toBe(OFFERED * (RETRY.maxAttempts - 1));
  });

  it('the default budget leaves a lone request its retries', async () => {
    let n = 0;
    server = track(await startServer((_req, res) => sendJSON(res, n++ < 2 ? 503 : 200, { n })));
    client = track(createClient({ baseURL: server.origin, retry: { maxAttempts: 3, waitBase: 5 } }));
    expect(await client.getJSON('x')).toEqual({ n: 3 });
  });
});
