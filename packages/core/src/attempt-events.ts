import type { EventSink } from './events.js';
import type { PluginRequest } from './types.js';
import type { Attempt } from './request-options.js';
import { redactText, redactURL } from './redact.js';

/**
 * Builders of the per-attempt events (`request.*`, `retry.scheduled`). The client calls them only when
 * `events.enabled`, so nothing is built, measured or redacted when nobody listens.
 */

/** Reports `request.start`; returns the attempt's start time for the duration of its outcome. */
export function attemptStarted(events: EventSink, { id: requestId, method, url }: Attempt, attempt: number, maxAttempts: number): number {
  events.emit('request.start', { requestId, method, url: redactURL(url), attempt, maxAttempts });
  return performance.now();
}

/** Reports `request.response` for an attempt that got its headers. */
export function attemptAnswered(
  events: EventSink, { id: requestId, method, url }: Attempt, attempt: number, maxAttempts: number, started: number, status: number,
): void {
  const durationMs = performance.now() - started;
  events.emit('request.response', { requestId, method, url: redactURL(url), status, durationMs, attempt, maxAttempts });
}

/** Reports `request.error` for an attempt that failed without a response. */
export function attemptFailed(
  events: EventSink, { id: requestId, method, url }: Attempt, attempt: number, maxAttempts: number, started: number, error: unknown,
): void {
  const durationMs = performance.now() - started;
  events.emit('request.error', { requestId, method, url: redactURL(url), errorType: errorType(error), message: errorMessage(error), durationMs, attempt, maxAttempts });
}

/** Reports `retry.scheduled` after attempt `attempt` failed (`outcome`: its status or its error). */
export function retryScheduled(
  events: EventSink, { id: requestId, method, url }: Attempt, attempt: number, maxAttempts: number, delayMs: number, outcome: number | unknown,
): void {
  const reason = typeof outcome === 'number' ? `status ${outcome}` : errorType(outcome);
  events.emit('retry.scheduled', { requestId, method, url: redactURL(url), reason, delayMs, attempt, maxAttempts });
}

/** The class name of an error (`NetworkError`), or `Error` for anything else thrown. */
export function errorType(error: unknown): string {
  return error instanceof Error ? error.name : 'Error';
}

function errorMessage(error: unknown): string {
  // sluice errors name requests with redacted URLs; redact again for errors from elsewhere (a plugin's).
  return redactText(error instanceof Error ? error.message : String(error));
}

/** Awaits an attempt's admission (rate-limit token, `Retry-After` pause) and reports how long it took. */
export async function waitAdmitted(admitted: Promise<void>, events: EventSink, origin: string): Promise<void> {
  if (!events.enabled) return admitted;
  const started = performance.now();
  await admitted;
  events.emit('ratelimit.wait', { origin, waitedMs: performance.now() - started });
}

/** Reports `request.end`: the request's final status, or the error it failed with. */
export function requestEnded(events: EventSink, { id: requestId, method, url }: PluginRequest, started: number, outcome: number | unknown): void {
  const durationMs = performance.now() - started;
  const end = typeof outcome === 'number' ? { status: outcome } : { errorType: errorType(outcome) };
  events.emit('request.end', { requestId, method, url: redactURL(url), durationMs, ...end });
}
