import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { createClient } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();

describe('many requests waiting to retry', () => {
  it('1,000 concurrent retries print no MaxListenersExceededWarning', async () => {
    const seen = new Set<string>();
    const server = track(await startServer((req, res) => {
      // Each path fails once, then succeeds: every request waits to retry at the same time.
      if (seen.has(req.url!)) return sendJSON(res, 200, { ok: true });
      seen.add(req.url!);
      sendJSON(res, 503, {});
    }));
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const c = track(createClient({
        baseURL: `${server.origin}/api`, retry: { maxAttempts: 2, waitBase: 200 }, retryBudget: false, pauseOnRetryAfter: false,
      }));
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => c.getJSON<{ ok: boolean }>(`r/${i}`)));
      expect(results.every((r) => r.ok)).toBe(true);
      expect(server.requests.length).toBe(2000);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
  }, 60_000);
});
