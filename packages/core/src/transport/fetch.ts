import type { Transport, TransportBody, TransportRequest, TransportResponse } from './types.js';

/** Options of {@link FetchTransport}. */
export interface FetchTransportOptions {
  /** The `fetch` to call. Default: the global `fetch`. */
  fetch?: typeof globalThis.fetch;
}

class FetchBody implements TransportBody {
  private done = false;
  constructor(private readonly stream: ReadableStream<Uint8Array> | null) {}
  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    if (!this.stream) return;
    const reader = this.stream.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        yield value;
      }
      this.done = true;
    } finally {
      if (!this.done) await reader.cancel().catch(() => undefined);
      reader.releaseLock();
    }
  }
  async cancel(): Promise<void> {
    if (this.stream && !this.stream.locked) await this.stream.cancel().catch(() => undefined);
  }
}

/**
 * A transport on the WHATWG `fetch` API: for runtimes other than Node, and to check that nothing in
 * sluice depends on undici. Redirects are left to the client (`redirect: 'manual'`), so credentials are
 * handled the same way on both transports.
 *
 * @example
 * ```ts
 * createClient({ baseURL, transport: new FetchTransport() })
 * ```
 */
export class FetchTransport implements Transport {
  private readonly fetchFn: typeof globalThis.fetch;

  constructor(options: FetchTransportOptions = {}) {
    this.fetchFn = options.fetch ?? globalThis.fetch;
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const body = request.body;
    const streaming = body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
    const init: RequestInit & { duplex?: 'half' } = {
      method: request.method,
      headers: request.headers,
      body: (streaming ? toReadableStream(body) : body) as globalThis.BodyInit | undefined,
      signal: request.signal,
      redirect: 'manual',
    };
    if (streaming) init.duplex = 'half';
    const response = await this.fetchFn(request.origin + request.path, init);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => { headers[name] = value; });
    const setCookie = response.headers.getSetCookie();
    return {
      status: response.status,
      headers,
      setCookie: setCookie.length > 0 ? setCookie : undefined,
      body: new FetchBody(response.body),
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
