import { Agent, type Dispatcher } from 'undici';
import { pipeline, type Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { Transport, TransportBody, TransportRequest, TransportResponse } from './types.js';

/** Options of {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** Most sockets per origin. Default 128. */
  connections?: number;
  /** How long an idle keep-alive socket stays open, in ms. Default 4000. */
  keepAliveTimeout?: number;
  /** TCP connect timeout in ms. Default 10000. */
  connectTimeout?: number;
  /**
   * Ask for compressed responses (`accept-encoding: gzip, deflate, br`, unless the request sets its own
   * `accept-encoding`) and decompress `gzip`, `deflate` and `br` bodies. Default true, as fetch does.
   */
  decompress?: boolean;
  /** An undici dispatcher of your own (a `ProxyAgent`, mTLS, a tuned `Agent`). The transport does not close it. */
  dispatcher?: Dispatcher;
}

const noop = (): void => undefined;

/** Bytes read to keep a connection reusable when a body is dropped; larger rests close the socket. */
const DUMP_LIMIT = 64 * 1024;

type UndiciReadable = Readable & { dump(options: { limit: number; signal?: AbortSignal }): Promise<void> };

class UndiciBody implements TransportBody {
  constructor(private readonly stream: UndiciReadable) {
    // Errors reach readers through the iterator; an unread body must not crash the process.
    stream.on('error', noop);
  }
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.stream[Symbol.asyncIterator]();
  }
  async cancel(): Promise<void> {
    if (this.stream.destroyed || this.stream.readableEnded) return;
    // Drain a small rest so the keep-alive socket can be reused; give up on a stalled one.
    void this.stream.dump({ limit: DUMP_LIMIT, signal: AbortSignal.timeout(1000) }).catch(noop);
  }
}

/** A compressed body read through a zlib stream; cancelling drops both. */
class DecodedBody implements TransportBody {
  private readonly decoded: Transform;
  constructor(private readonly raw: Readable, encoding: string) {
    // Default (strict) flushing: a truncated compressed body is an error, never silently short data.
    this.decoded = encoding === 'br' ? createBrotliDecompress() : encoding === 'deflate' ? createInflate() : createGunzip();
    raw.on('error', noop);
    this.decoded.on('error', noop);
    pipeline(raw, this.decoded, noop);
  }
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.decoded[Symbol.asyncIterator]();
  }
  async cancel(): Promise<void> {
    this.decoded.destroy();
    this.raw.destroy();
  }
}

const DECODABLE = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

function flattenHeaders(raw: Record<string, string | string[] | undefined>): {
  headers: Record<string, string>;
  setCookie: string[] | undefined;
} {
  const headers: Record<string, string> = {};
  let setCookie: string[] | undefined;
  for (const name in raw) {
    const value = raw[name];
    if (value === undefined) continue;
    if (name === 'set-cookie') setCookie = Array.isArray(value) ? value : [value];
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return { headers, setCookie };
}

/**
 * The default Node transport: undici's `request` API on a keep-alive connection pool of its own, the
 * fastest honest way to speak HTTP/1.1 from Node. Each transport owns its pool, so clients never share
 * undici's global dispatcher by accident. Compressed responses are decoded like fetch does.
 *
 * @example
 * ```ts
 * import { ProxyAgent } from 'undici'
 * createClient({ baseURL, transport: new UndiciTransport({ connections: 16 }) })
 * createClient({ baseURL, transport: new UndiciTransport({ dispatcher: new ProxyAgent(proxyURL) }) })
 * ```
 */
export class UndiciTransport implements Transport {
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly decompress: boolean;

  constructor(options: UndiciTransportOptions = {}) {
    this.ownsDispatcher = options.dispatcher === undefined;
    this.decompress = options.decompress ?? true;
    this.dispatcher = options.dispatcher ?? new Agent({
      connections: options.connections ?? 128,
      keepAliveTimeout: options.keepAliveTimeout ?? 4000,
      connectTimeout: options.connectTimeout ?? 10_000,
      // Each request sets its own headers and body timeouts.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    let headers = request.headers;
    if (this.decompress && headers['accept-encoding'] === undefined) {
      headers = { ...headers, 'accept-encoding': 'gzip, deflate, br' };
    }
    const response = await this.dispatcher.request({
      origin: request.origin,
      path: request.path,
      method: request.method as Dispatcher.HttpMethod,
      headers,
      body: request.body as Dispatcher.DispatchOptions['body'],
      signal: request.signal,
      // undici's own timers: the headers wait, then the silence between body chunks, as the seam says.
      headersTimeout: request.timeout === false ? 0 : request.timeout,
      bodyTimeout: request.timeout === false ? 0 : request.timeout,
    });
    const flat = flattenHeaders(response.headers);
    const encoding = flat.headers['content-encoding']?.trim().toLowerCase();
    const body = this.decompress && encoding !== undefined && DECODABLE.has(encoding)
      ? new DecodedBody(response.body, encoding === 'x-gzip' ? 'gzip' : encoding)
      : new UndiciBody(response.body as UndiciReadable);
    return { status: response.statusCode, headers: flat.headers, setCookie: flat.setCookie, body };
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  isTimeout(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
  }
}
