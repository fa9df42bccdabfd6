import { ConfigError } from '../errors.js';
import { TransportTimeoutError, type Transport, type TransportBody, type TransportRequest, type TransportResponse } from './types.js';

/** Options of {@link FetchTransport}. */
export interface FetchTransportOptions {
  /** The `fetch` to call. Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch | undefined;
  /**
   * Only `false` is accepted: the fetch API has no proxy setting, so any other value is a
   * {@link ConfigError} rather than silently ignored. Use {@link UndiciTransport} for proxies.
   */
  proxy?: false | undefined;
  /** Not supported (the fetch API has no TLS settings): any value is a {@link ConfigError}. Use {@link UndiciTransport}. */
  tls?: never | undefined;
}

/** One exchange's abort wiring: the caller's signal plus the headers/idle timer. */
class Exchange {
  readonly controller = new AbortController();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private finished = false;
  private readonly onAbort = (): void => this.controller.abort(this.signal!.reason);

  constructor(private readonly signal: AbortSignal | undefined, private readonly timeout: number | false) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
    this.arm('headers');
  }

  /** (Re)starts the timer for the next phase: waiting for headers, or for the next body chunk. */
  arm(phase: 'headers' | 'body'): void {
    if (this.timeout === false || this.finished) return;
    const timeout = this.timeout;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.controller.abort(new TransportTimeoutError(phase, timeout)), timeout);
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.signal?.removeEventListener('abort', this.onAbort);
  }
}

class FetchBody implements TransportBody {
  constructor(private readonly stream: ReadableStream<Uint8Array> | null, private readonly exchange: Exchange) {
    if (!stream) exchange.finish();
  }
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (!this.stream) return;
    const reader = this.stream.getReader();
    let done = false;
    try {
      for (;;) {
        this.exchange.arm('body');
        const next = await reader.read();
        if (next.done) break;
        yield next.value;
      }
      done = true;
    } catch (error) {
      // fetch rejects with the abort reason: a TransportTimeoutError when our timer fired.
      throw this.exchange.controller.signal.aborted ? this.exchange.controller.signal.reason : error;
    } finally {
      this.exchange.finish();
      if (!done) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  async cancel(): Promise<void> {
    this.exchange.finish();
    if (this.stream && !this.stream.locked) await this.stream.cancel().catch(() => undefined);
  }
}

/**
 * A transport on the WHATWG `fetch` API: for runtimes other than Node, and to check that nothing in
 * sluice depends on undici. Redirects are left to the client (`redirect: 'manual'`), so credentials are
 * handled the same way on both transports; the timeout is enforced with an `AbortController` per request.
 * Note that WHATWG URL parsing percent-encodes `'` in queries (`%27`), which servers read as the same.
 *
 * @example
 * ```ts
 * createClient({ baseURL, transport: new FetchTransport() })
 * ```
 */
export class FetchTransport implements Transport {
  private readonly fetchFn: typeof globalThis.fetch;
  /** The fetch API cannot present a client certificate. */
  readonly clientCertificate = false;

  constructor(options: FetchTransportOptions = {}) {
    const { proxy, tls } = options as { proxy?: unknown; tls?: unknown };
    if (proxy !== undefined && proxy !== false) {
      throw new ConfigError('proxy', 'cannot be honoured by FetchTransport: the fetch API has no proxy setting. Use UndiciTransport (the default transport), or a fetch of your own that routes through the proxy');
    }
    if (tls !== undefined) {
      const keys = tls !== null && typeof tls === 'object' ? Object.keys(tls).map((k) => `tls.${k}`).join(', ') : 'tls';
      throw new ConfigError('tls', `cannot be honoured by FetchTransport (${keys || 'tls'}): the fetch API has no TLS settings (CAs, client certificates, SNI, versions). Use UndiciTransport (the default transport)`);
    }
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const body = request.body;
    const streaming = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    const exchange = new Exchange(request.signal, request.timeout);
    const init: RequestInit & { duplex?: 'half' | undefined } = {
      method: request.method,
      headers: request.headers,
      body: (streaming ? toReadableStream(body) : body) as globalThis.BodyInit | undefined,
      signal: exchange.controller.signal,
      redirect: 'manual',
    };
    if (streaming) init.duplex = 'half';
    let response: Response;
    try {
      response = await this.fetchFn(request.origin + request.path, init);
    } catch (error) {
      exchange.finish();
      throw exchange.controller.signal.aborted ? exchange.controller.signal.reason : error;
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => { headers[name] = value; });
    const setCookie = response.headers.getSetCookie();
    return {
      status: response.status,
      headers,
      setCookie: setCookie.length > 0 ? setCookie : undefined,
      body: new FetchBody(response.body, exchange),
    };
  }

  async close(): Promise<void> {}
}

function toReadableStream(body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
  if (body instanceof ReadableStream) return body;
  const iterator = body[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}
