import { describe, expect, it } from 'vitest';
import { closeAfterEach } from './close-after-each.js';
import { startServer, sendJSON, type TestServer } from '@sluice/testkit';
import { AbortError, BulkheadRejectedError, createClient, type Client } from '@sluice/core';

let server: TestServer | undefined;
let client: Client | undefined;
const track = closeAfterEach();

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('bulkhead', () => {
  it('a slow server never sees more than maxConcurrent requests of the client at once', async () => {
    let inFlight = 0;
    let peak = 0;
    server = track(await startServer((_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        sendJSON(res, 200, { ok: true });
      }, 30);
    }));
    client = track(createClient({ baseURL: server.origin, bulkhead: { maxConcurrent: 3 } }));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => client!.getJSON(`r/${i}`)));
    expect(results).toHaveLength(12);
    expect(peak).toBeLessThanOrEqual(3);
    // The cap was reached, not merely unused.
    expect(peak).toBeGreaterThan(1);
    expect(server.requests).toHaveLength(12);
  });

  it('a full queue rejects at once; aborting a waiter frees its place at once and it is never sent', async () => {
    const held: (() => void)[] = [];
    server = track(await startServer((_req, res) => {
      held.push(() => sendJSON(res, 200, { ok: true }));
    }));
    client = track(createClient({ baseURL: server.origin, bulkhead: { maxConcurrent: 1, maxQueue: 1 } }));
    const first = client.getJSON('first');
    const controller = new AbortController();
    const second = client.get('second', { signal: controller.signal }).catch((e: unknown) => e);
    const third = await client.get('third').catch((e: unknown) => e);
    expect(third).toBeInstanceOf(BulkheadRejectedError);
    expect((third as BulkheadRejectedError).message).toMatch(/1 requests in flight and 1 waiting/);

    // 'first' is held by the server until released below: only the abort can settle 'second' now.
    controller.abort();
    expect(await second).toBeInstanceOf(AbortError);
    expect(held.length).toBeLessThanOrEqual(1);

    let fourthSettled = false;
    const fourth = client.getJSON('fourth').finally(() => { fourthSettled = true; });
    await tick();
    await tick();
    expect(fourthSettled).toBe(false);

    while (held.length < 1) await tick();
    held[0]!();
    await first;
    while (held.length < 2) await tick();
    held[1]!();
    expect(await fourth).toEqual({ ok: true });
    expect(server.requests.map((r) => r.url)).toEqual(['/first', '/fourth']);
  });

  it('a failed request gives its slot back', async () => {
    server = track(await startServer((_req, res) => sendJSON(res, 500, {})));
    client = track(createClient({ baseURL: server.origin, retry: false, bulkhead: { maxConcurrent: 1, maxQueue: 0 } }));
    for (let i = 0; i < 3; i++) await expect(client.get('x')).rejects.toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(3);
  });
});
