// How many HTTP attempts went to each URL, counted from the client's per-attempt events, so a failure
// says how often it was tried (core's retries happen inside one page attempt of the OData stream).
import type { SluiceEvent } from '@sluice/core';

/** Attempts per redacted URL (the form errors show), the most recent URLs only. */
const attempts = new Map<string, number>();
const KEPT = 64;

/** Counts an attempt that got an answer or failed (`request.response`, `request.error`). */
export function countAttempt(event: SluiceEvent): void {
  if (event.type !== 'request.response' && event.type !== 'request.error') return;
  const url = (event as { url?: unknown }).url;
  if (typeof url !== 'string') return;
  const n = (attempts.get(url) ?? 0) + 1;
  attempts.delete(url);
  attempts.set(url, n);
  if (attempts.size > KEPT) attempts.delete(attempts.keys().next().value!);
}

/** HTTP attempts sent to `url` (redacted, as errors carry it) during this run; 0 when none was seen. */
export function attemptsTo(url: string): number {
  return attempts.get(url) ?? 0;
}
