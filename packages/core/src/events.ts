import type { KnownSecrets } from './known-secrets.js';

/**
 * Every event a client reports, by type. Packages built on the core add their own entries by module
 * augmentation, so one `onEvent` listener receives the events of core, OAuth and OData alike, typed:
 *
 * ```ts
 * declare module '@sluice/core' {
 *   interface SluiceEventMap { 'odata.link.rebased': { from: string; to: string } }
 * }
 * ```
 *
 * Names are dotted, from the general to the particular (`origin.paused`, `odata.link.rebased`). No
 * payload ever carries a credential: URLs in events are redacted.
 */
export interface SluiceEventMap {
  /** A `429`/`503` with `Retry-After` paused every attempt to `origin` for `pauseMs` (capped at `maxPause`). */
  'origin.paused': { origin: string; status: number; pauseMs: number; retryAfterMs: number };
  /** The client's transport does not check server certificates (`option` names the setting): anyone on the path can read and change traffic. */
  'tls.insecure': { option: string };
  /**
   * Attempt `attempt` of at most `maxAttempts` of a request starts (`url` redacted). Redirect hops belong to
   * the attempt. `requestId` (unique in the process, also `PluginRequest.id`) ties a request's events together.
   */
  'request.start': { requestId: number; method: string; url: string; attempt: number; maxAttempts: number };
  /** An attempt got its response headers: `durationMs` since its `request.start` (rate-limit waits included). */
  'request.response': { requestId: number; method: string; url: string; status: number; durationMs: number; attempt: number; maxAttempts: number };
  /** An attempt failed without a response: `errorType` is the error's class name (`NetworkError`, `TimeoutError`...), `message` its redacted message. */
  'request.error': { requestId: number; method: string; url: string; errorType: string; message: string; durationMs: number; attempt: number; maxAttempts: number };
  /** Attempt `attempt` failed and the next one starts in `delayMs`; `reason` is `status 503` or the error's class name. */
  'retry.scheduled': { requestId: number; method: string; url: string; reason: string; delayMs: number; attempt: number; maxAttempts: number };
  /**
   * A request ended (after its retries and plugin resends): with the final `status`, or the `errorType` it
   * failed with. `durationMs` runs from the request's start; `requestId` is the one its attempts carried.
   */
  'request.end': { requestId: number; method: string; url: string; status?: number | undefined; errorType?: string | undefined; durationMs: number };
  /** An attempt to `origin` waited `waitedMs` for a rate-limit token or an origin's `Retry-After` pause. */
  'ratelimit.wait': { origin: string; waitedMs: number };
  /** The circuit breaker of `origin` changed state (also given to `circuitBreaker.onStateChange`). */
  'circuit.state': { origin: string; from: 'closed' | 'open' | 'half-open'; to: 'closed' | 'open' | 'half-open'; reason: string };
  /** A `status` redirect was followed (`from` and `to` redacted; credentials dropped when the origin changes). */
  'redirect.followed': { method: string; status: number; from: string; to: string };
}

/** One event: its `type` and the payload {@link SluiceEventMap} gives for that type. */
export type SluiceEvent = {
  [K in keyof SluiceEventMap]: { readonly type: K } & Readonly<SluiceEventMap[K]>;
}[keyof SluiceEventMap];

/** The event of one type. */
export type SluiceEventOf<K extends keyof SluiceEventMap> = Extract<SluiceEvent, { type: K }>;

/** Receives events (`onEvent` option, or {@link EventSink.on}). What it throws is ignored. */
export type SluiceEventListener = (event: SluiceEvent) => void;

/**
 * Where a client's events go. Emitting costs one property check when nobody listens: guard payloads
 * that cost something to build with {@link EventSink.enabled}.
 *
 * @example
 * ```ts
 * const off = client.events.on((e) => { if (e.type === 'origin.paused') console.warn(e.origin, e.pauseMs) })
 * off()   // stop listening
 * ```
 */
export class EventSink {
  private listeners: readonly SluiceEventListener[];

  /**
   * @param secrets - values scrubbed from every string field of every event (the client passes its
   * {@link KnownSecrets}), on top of the redaction the emitters apply.
   */
  constructor(listeners: readonly SluiceEventListener[] = [], private readonly secrets?: KnownSecrets | undefined) {
    this.listeners = listeners;
  }

  /** Whether anyone listens. */
  get enabled(): boolean {
    return this.listeners.length > 0;
  }

  /** Adds a listener; returns a function that removes it. */
  on(listener: SluiceEventListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /** Reports an event to every listener. A listener that throws does not disturb the request. */
  emit<K extends keyof SluiceEventMap>(type: K, data: SluiceEventMap[K]): void {
    const listeners = this.listeners;
    if (listeners.length === 0) return;
    const event = { type, ...data } as unknown as SluiceEvent;
    const secrets = this.secrets;
    if (secrets !== undefined && secrets.size > 0) {
      const fields = event as unknown as Record<string, unknown>;
      for (const key of Object.keys(fields)) {
        const value = fields[key];
        if (typeof value === 'string') fields[key] = secrets.scrub(value);
        else if (value instanceof Error) secrets.scrubError(value);
      }
    }
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A faulty listener must not turn into a failed request.
      }
    }
  }
}
