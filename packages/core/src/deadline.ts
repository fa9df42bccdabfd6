import { AbortError, ConfigError, TimeoutError, type SluiceError } from './errors.js';

/**
 * The request's `deadline` passed: the total time for the logical request (every attempt, retry wait,
 * rate-limit or pause wait, redirect and the body read) ran out, or the caller's signal came from
 * `AbortSignal.timeout()` and fired. Never retried. A subclass of {@link TimeoutError}, so code that
 * catches timeouts catches it too.
 *
 * @example
 * ```ts
 * try { await client.get('report', { deadline: 5000 }) } catch (err) {
 *   if (err instanceof DeadlineError) console.warn(`gave up after ${err.deadline ?? '?'} ms`)
 * }
 * ```
 */
export class DeadlineError extends TimeoutError {
  /** The deadline in ms from the start of the request, or undefined when an `AbortSignal.timeout()` fired. */
  readonly deadline: number | undefined;
  constructor(method: string, url: string, deadline: number | undefined, options?: { cause?: unknown }) {
    const detail = deadline === undefined
      ? 'passed its deadline (the AbortSignal.timeout() of its signal fired)'
      : `passed its deadline of ${deadline} ms (attempts, retry waits and the body read together)`;
    super(method, url, deadline ?? Number.NaN, options, detail);
    this.deadline = deadline;
  }
}

/** The reason a deadline aborts the request's signal with: tells a deadline from the caller's abort. */
class DeadlinePassed extends Error {
  constructor(readonly budget: number) {
    super(`deadline of ${budget} ms passed`);
    this.name = 'DeadlinePassed';
  }
}

/** A `deadline` option: ms from the start of the request, an absolute time, or false for none. */
export type DeadlineInit = number | Date | false;

/** Validates a `deadline` option (client level: ms or false; request level also a Date). */
export function checkDeadline(option: string, value: unknown, allowDate: boolean): DeadlineInit | undefined {
  if (value === undefined || value === false) return value;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  if (allowDate && value instanceof Date && !Number.isNaN(value.getTime())) return value;
  throw new ConfigError(option, `must be a number of ms > 0${allowDate ? ', a valid Date' : ''} or false, got ${String(value)}`);
}

/**
 * The deadline of one request: a signal that aborts when the caller's signal does or when the time is up,
 * whichever comes first. The client passes it wherever it would pass the caller's signal (transport,
 * waits, plugins), so one timer bounds everything. {@link RequestDeadline.release} stops the timer and
 * lets go of the caller's signal.
 */
export class RequestDeadline {
  readonly signal: AbortSignal;
  /** The budget in ms, from the start of the request. */
  readonly budget: number;
  private readonly controller = new AbortController();
  private readonly endsAt: number;
  private readonly timer: ReturnType<typeof setTimeout> | undefined;
  private readonly onCallerAbort = (): void => this.controller.abort(this.caller!.reason);

  constructor(deadline: number | Date, private readonly caller: AbortSignal | undefined) {
    const ms = typeof deadline === 'number' ? deadline : deadline.getTime() - Date.now();
    this.budget = Math.max(0, Math.round(ms));
    this.endsAt = performance.now() + ms;
    this.signal = this.controller.signal;
    if (caller?.aborted) {
      this.controller.abort(caller.reason);
      return;
    }
    if (ms <= 0) {
      this.controller.abort(new DeadlinePassed(this.budget));
      return;
    }
    caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.timer = setTimeout(() => {
      this.release();
      this.controller.abort(new DeadlinePassed(this.budget));
    }, Math.ceil(ms));
    this.timer.unref();
  }

  /** Milliseconds left (0 once passed). */
  remaining(): number {
    return Math.max(0, this.endsAt - performance.now());
  }

  /** Whether a wait of `ms` would end at or after the deadline. */
  passedAfter(ms: number): boolean {
    return ms >= this.remaining();
  }

  /** The request is over: stop the timer and the caller's listener. Safe to call twice. */
  release(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/** A deadline for a request, or undefined when neither the request nor the client sets one. */
export function startDeadline(deadline: DeadlineInit | undefined, signal: AbortSignal | undefined): RequestDeadline | undefined {
  if (deadline === undefined || deadline === false) return undefined;
  return new RequestDeadline(deadline, signal);
}

/**
 * The typed error for an aborted signal: {@link DeadlineError} when a deadline or an
 * `AbortSignal.timeout()` ended it, else {@link AbortError} with the caller's reason as `cause`.
 */
export function abortErrorFor(method: string, url: string, signal: AbortSignal): SluiceError {
  const reason: unknown = signal.reason;
  if (reason instanceof DeadlinePassed) return new DeadlineError(method, url, reason.budget);
  if (reason instanceof DOMException && reason.name === 'TimeoutError') return new DeadlineError(method, url, undefined, { cause: reason });
  return new AbortError(method, url, { cause: reason });
}
