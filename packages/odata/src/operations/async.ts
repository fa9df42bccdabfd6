import { AbortError, Client, ConfigError, parseRetryAfter, redactURL, sleep, type SluiceResponse } from '@sluice/core';
import { checkCallOptions } from '../call-options.js';
import { isRedirectStatus, redirectError } from '../write/redirect.js';
import type { ODataClient } from '../client.js';
import { ForeignOriginError, type LinkKind } from '../links/policy.js';
import { toODataError } from '../read/error-body.js';
import { readJsonAnswer } from '../read/json-answer.js';
import { spanContext } from '../telemetry.js';
import { embeddedError, embeddedValue, fetchResult, isEmbedded, readEmbedded, type AsyncResultHost } from './async-result.js';
import { AsyncOperationCancelledError, AsyncOperationFailedError, AsyncOperationTimeoutError } from './errors.js';

/** The states of an async operation (SPEC 2.5, 3.2). */
export const AsyncOpStatus = {
  Running: 'Running',
  Succeeded: 'Succeeded',
  Failed: 'Failed',
  Cancelled: 'Cancelled',
} as const;
/** One of {@link AsyncOpStatus}. */
export type AsyncOpStatus = (typeof AsyncOpStatus)[keyof typeof AsyncOpStatus];

/** Options of {@link createAsyncPoller} (SPEC 4.5 WithPollInterval, WithMaxPolls). */
export interface AsyncPollerOptions {
  /** Wait between polls in ms (default 2000), unless the service sends `Retry-After`. */
  pollInterval?: number | undefined;
  /** Polls before giving up with AsyncOperationTimeoutError (default 30). */
  maxPolls?: number | undefined;
  /**
   * When the operation succeeded and the status resource names its result (`ResultURL`), GET it through
   * the same client and link policy and hand back its decoded body as `value` (default true). false only
   * reports `resultURL`, for a caller who streams or skips the result.
   */
  fetchResult?: boolean | undefined;
}

/** The final status `wait()` resolves with. */
export interface AsyncStatus<T = unknown> {
  readonly status: typeof AsyncOpStatus.Succeeded;
  /**
   * Where the result is, resolved by the link policy: `ResultURL` of the status body, the URL a 303 led
   * to, or the `Location` of an embedded final response (a created entity).
   */
  readonly resultURL: string | undefined;
  /**
   * The result, decoded like an action's value: the monitor's own answer (200 with the result, or the
   * final response embedded as `application/http`), or the body fetched from `ResultURL` or a 303's
   * `Location` (unless `fetchResult: false`); undefined when there is none (204).
   */
  readonly value: T | undefined;
  /** The HTTP status of the operation's own final response when the monitor embedded it, or of the fetched result. */
  readonly resultStatus: number | undefined;
  /** The last status body as JSON, when there was one. */
  readonly body: unknown;
  readonly polls: number;
}

/** Redirects of the monitor that name the finished operation's result (OData 4.01 Part 1 section 11.6: 303; 302 as some services send it). */
const RESULT_REDIRECTS: ReadonlySet<number> = new Set([302, 303]);
/** Redirects that move the monitor itself. */
const MONITOR_MOVES: ReadonlySet<number> = new Set([301, 307, 308]);

const STATUS_WORDS: Record<string, AsyncOpStatus> = {
  running: 'Running', inprogress: 'Running', notstarted: 'Running', pending: 'Running', accepted: 'Running',
  succeeded: 'Succeeded', completed: 'Succeeded', done: 'Succeeded',
  failed: 'Failed', error: 'Failed', cancelled: 'Cancelled', canceled: 'Cancelled',
};

function field(body: unknown, ...names: string[]): unknown {
  if (typeof body !== 'object' || body === null) return undefined;
  for (const name of names) if (name in body) return (body as Record<string, unknown>)[name];
  return undefined;
}

/**
 * Watches an asynchronous operation (SPEC 3.2, 4.5, 7) at its status URL. Understands a status resource
 * (`{"Status":"Running"}` … `Succeeded` with `ResultURL`, `Failed`, `Cancelled`) and the standard OData
 * status monitor (`202` while running, then `200` with the result or a `303` to it); an error status from
 * the monitor is the operation's failure. Waits `pollInterval`, or the service's `Retry-After`.
 */
export class AsyncPoller<T = unknown> {
  /** The status URL polled. */
  readonly statusURL: string;
  private readonly http: Client;
  private readonly pollInterval: number;
  private readonly maxPolls: number;
  private readonly fetchResult: boolean;
  private readonly host: AsyncResultHost;

  /** Prefer {@link createAsyncPoller}, which also applies an OData client's link policy and protocol. */
  constructor(http: Client, statusURL: string, options: AsyncPollerOptions);
  /** @internal */
  constructor(http: Client, statusURL: string, options: AsyncPollerOptions, host: AsyncResultHost);
  constructor(http: Client, statusURL: string, options: AsyncPollerOptions, host: AsyncResultHost = originHost(http)) {
    checkCallOptions('createAsyncPoller()', undefined, options, 'poller');
    this.http = http;
    this.statusURL = statusURL;
    this.host = host;
    this.pollInterval = options.pollInterval ?? 2000;
    this.maxPolls = options.maxPolls ?? 30;
    this.fetchResult = options.fetchResult ?? true;
    if (typeof this.fetchResult !== 'boolean') throw new ConfigError('fetchResult', `must be a boolean, got ${String(options.fetchResult)}`);
    if (!Number.isFinite(this.pollInterval) || this.pollInterval < 0) throw new ConfigError('pollInterval', `must be a number of ms >= 0, got ${String(options.pollInterval)}`);
    if (!Number.isSafeInteger(this.maxPolls) || this.maxPolls < 1) throw new ConfigError('maxPolls', `must be an integer >= 1, got ${String(options.maxPolls)}`);
  }

  /**
   * Polls until the operation ends. Succeeded resolves; Failed throws AsyncOperationFailedError,
   * Cancelled AsyncOperationCancelledError, `maxPolls` polls while running AsyncOperationTimeoutError;
   * an abort (or an `AbortSignal.timeout` deadline) ends the wait with AbortError, whatever polls remain;
   * a status answer or result that is no JSON is an ODataFormatError.
   */
  async wait(options: { signal?: AbortSignal | undefined } = {}): Promise<AsyncStatus<T>> {
    checkCallOptions('wait()', undefined, options, 'signalOnly');
    const { signal } = options;
    const shown = redactURL(this.statusURL);
    let monitor = this.statusURL;
    for (let polls = 1; ; polls++) {
      // Redirects are the poller's to follow: their Location passes the link policy before anything is requested there.
      const response = await this.http.request({
        method: 'GET', path: monitor, signal, throwHttpErrors: false, maxRedirects: 0, headers: { accept: 'application/json' }, context: spanContext({ type: 'async_poll' }),
      });
      if (response.status >= 400) {
        const cause = await toODataError(response);
        throw new AsyncOperationFailedError(shown, polls, cause.message, undefined, { cause });
      }
      const location = RESULT_REDIRECTS.has(response.status) || MONITOR_MOVES.has(response.status) ? response.headers.get('location') : null;
      if (location !== null) {
        if (MONITOR_MOVES.has(response.status)) {
          // 301, 307, 308: the monitor itself moved; the move counts as a poll, so a loop ends at maxPolls.
          monitor = this.resolveOrCancel('statusURL', location, response);
          await response.cancel();
          if (polls >= this.maxPolls) throw new AsyncOperationTimeoutError(shown, polls);
          continue;
        }
        // 303 (or 302): done, the result is at Location (rebased, allowed, or ForeignOriginError before any request).
        const resultURL = this.resolveOrCancel('resultURL', location, response);
        await response.cancel();
        if (!this.fetchResult) return { status: 'Succeeded', resultURL, value: undefined, resultStatus: undefined, body: undefined, polls };
        const fetched = await this.fetchFrom(resultURL, signal);
        return { status: 'Succeeded', resultURL, value: fetched.value as T | undefined, resultStatus: fetched.status, body: undefined, polls };
      }
      if (response.status === 200 && isEmbedded(response)) return this.embedded(response, polls);
      const { status, body } = await this.read(response);
      if (status === 'Succeeded') {
        const result = field(body, 'ResultURL', 'resultURL', 'resultUrl', 'resourceLocation');
        if (typeof result === 'string') {
          const resultURL = this.host.resolve('resultURL', result, response.url);
          if (!this.fetchResult) return { status, resultURL, value: undefined, resultStatus: undefined, body, polls };
          const fetched = await this.fetchFrom(resultURL, signal);
          return { status, resultURL, value: fetched.value as T | undefined, resultStatus: fetched.status, body, polls };
        }
        const direct = field(body, 'Status', 'status') === undefined;
        const value = direct && body !== undefined ? this.host.decode(body) as T : undefined;
        return { status, resultURL: undefined, value, resultStatus: direct ? response.status : undefined, body, polls };
      }
      if (status === 'Failed') {
        const error = field(body, 'Error', 'error');
        const detail = typeof error === 'string' ? error : String(field(error, 'message') ?? '');
        throw new AsyncOperationFailedError(shown, polls, detail, body);
      }
      if (status === 'Cancelled') throw new AsyncOperationCancelledError(shown, polls);
      if (polls >= this.maxPolls) throw new AsyncOperationTimeoutError(shown, polls);
      const wait = parseRetryAfter(response.headers.get('retry-after') ?? undefined) ?? this.pollInterval;
      try {
        await sleep(wait, signal);
      } catch (reason) {
        throw new AbortError('GET', this.statusURL, { cause: reason });
      }
    }
  }

  /** Asks the service to cancel the operation (`DELETE` on the status URL, OData 4.01 Part 1 section 9.1.3). */
  async cancel(options: { signal?: AbortSignal | undefined } = {}): Promise<void> {
    checkCallOptions('cancel()', undefined, options, 'signalOnly');
    const response = await this.http.request({ method: 'DELETE', path: this.statusURL, signal: options.signal, throwHttpErrors: false, context: spanContext({ type: 'async_cancel' }) });
    if (response.status >= 400) throw await toODataError(response);
    // A redirect (a logon page once the session ended) is no answer to the DELETE: it was not applied.
    if (isRedirectStatus(response.status)) throw await redirectError(response, response.headers.get('location') ?? undefined, 'the cancel request was not applied');
    await response.cancel();
  }

  /** The result at `url`, GET through the same client. */
  private async fetchFrom(url: string, signal: AbortSignal | undefined): Promise<{ value: unknown; status: number }> {
    return fetchResult(this.http, url, signal, this.host);
  }

  /** The URL a redirect of the monitor leads to, under the link policy; a refused one frees the monitor's answer first. */
  private resolveOrCancel(kind: LinkKind, location: string, response: SluiceResponse): string {
    try {
      return this.host.resolve(kind, location, response.url);
    } catch (error) {
      void response.cancel();
      throw error;
    }
  }

  /** OData 4.01 Part 1 section 11.6: the monitor's 200 carries the operation's final response as `application/http`. */
  private async embedded(response: SluiceResponse, polls: number): Promise<AsyncStatus<T>> {
    const embedded = await readEmbedded(response);
    if (embedded.status >= 400) {
      const cause = embeddedError(embedded, response);
      throw new AsyncOperationFailedError(redactURL(this.statusURL), polls, cause.odataMessage ?? `status ${embedded.status}`, undefined, { cause });
    }
    const location = embedded.headers['location'];
    const resultURL = location === undefined ? undefined : this.host.report('location', location, response.url);
    return { status: 'Succeeded', resultURL, value: embeddedValue(embedded, response, this.host) as T | undefined, resultStatus: embedded.status, body: undefined, polls };
  }

  private async read(response: SluiceResponse): Promise<{ status: AsyncOpStatus; body: unknown }> {
    // The OData status monitor answers 202 while the operation runs.
    if (response.status === 202) {
      await response.cancel();
      return { status: 'Running', body: undefined };
    }
    // Read as every JSON answer is: a 200 with the result in its body gets the precision guard.
    const body = await readJsonAnswer(response, { parse: this.host.parse, error: 'ODataFormatError' });
    const word = field(body, 'Status', 'status');
    if (typeof word !== 'string') return { status: 'Succeeded', body };
    const status = STATUS_WORDS[word.toLowerCase().replace(/[\s_-]/g, '')];
    if (status === undefined) throw new AsyncOperationFailedError(redactURL(this.statusURL), 0, `unknown status ${JSON.stringify(word.slice(0, 40))}`, body);
    return { status, body };
  }
}

/**
 * Creates a poller for the status URL of an async operation (SPEC 4.5 NewAsyncPoller). With an OData
 * client the URL passes its link policy (same origin, rebased, or `allowedOrigins`; anything else is a
 * ForeignOriginError before any request), so credentials never go to another origin; with a core client
 * the URL must be on the client's base URL origin.
 *
 * @example
 * ```ts
 * const run = await od.action('StartJob').execute({ async: true })
 * if (run.isAsync) await createAsyncPoller(od, run.location!, { pollInterval: 500 }).wait({ signal: AbortSignal.timeout(60_000) })
 * ```
 */
export function createAsyncPoller<T = unknown>(client: ODataClient | Client, statusURL: string, options: AsyncPollerOptions = {}): AsyncPoller<T> {
  if (typeof statusURL !== 'string' || statusURL === '') throw new ConfigError('statusURL', 'must be a URL');
  if (client instanceof Client) {
    if (!URL.canParse(statusURL, client.options.baseURL)) throw new ConfigError('statusURL', 'must be an absolute URL, or relative to the client\'s baseURL');
    const url = new URL(statusURL, client.options.baseURL);
    if (client.origin !== undefined && url.origin !== client.origin) throw new ForeignOriginError('statusURL', url.origin, client.origin);
    return new AsyncPoller<T>(client, url.href, options);
  }
  const host: AsyncResultHost = {
    resolve: (kind, link, base) => client.links.resolve(kind, link, base),
    report: (kind, link, base) => client.links.report(kind, link, base),
    decode: (json) => client.knownProtocol()?.write.operationResult(json, '', undefined) ?? json,
    // The result's type is not known here: Int64 a double cannot hold stays exact (a service ignoring IEEE754Compatible).
    parse: (text, contentType) => {
      const precision = client.writeSettings().precision;
      const version = client.knownProtocol()?.version;
      return precision === undefined || version === undefined ? JSON.parse(text) : precision.parseBody(text, contentType, version, undefined, 'entity');
    },
  };
  return new AsyncPoller<T>(client.http, client.links.resolve('statusURL', statusURL, client.serviceURL), options, host);
}

/** A core client's rule for server-given links: its base URL's origin only. */
function originHost(http: Client): AsyncResultHost {
  const resolve = (kind: LinkKind, link: string, base: string): string => {
    const url = new URL(link, base);
    if (http.origin !== undefined && url.origin !== http.origin) throw new ForeignOriginError(kind, url.origin, http.origin);
    return url.href;
  };
  return {
    resolve,
    report: (_kind, link, base) => (URL.canParse(link, base) ? new URL(link, base).href : link),
    decode: (json) => json,
  };
}
