import type { Client } from '@sluice/core';

/**
 * Plays a busy client: sends `GET path` (`parallel` at a time) until `done` settles, and resolves with its
 * value and the number of requests sent. Proactive refresh is driven by requests, so tests that wait
 * for a refresh keep the client busy instead of sleeping.
 */
export async function busyUntil<T>(client: Client, done: Promise<T>, path = 'me', parallel = 1): Promise<{ value: T; requests: number }> {
  let settled = false;
  const result = done.finally(() => {
    settled = true;
  });
  let requests = 0;
  while (!settled) {
    await Promise.all(Array.from({ length: parallel }, () => client.get(path).catch(() => undefined)));
    requests += parallel;
    // Let timers and sockets run between requests: a busy client, not a tight loop.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return { value: await result, requests };
}
