import type { Dispatcher } from 'undici';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ConfigError } from '../errors.js';
import { Routes, type Route } from './dispatcher.js';
import { resolveProxy, toProxyError, type ProxyOption } from './proxy.js';
import { resolveTLS, type TLSOptions } from './tls.js';
import { TransportTimeoutError, type Transport, type TransportBody, type TransportRequest, type TransportResponse } from './types.js';

/**
 * An undici dispatcher (`Agent`, `Pool`, `Client`, `ProxyAgent`, `MockAgent`, ... of the undici version your
 * application uses), as {@link UndiciTransportOptions} `dispatcher` takes it: described by the methods the
 * transport relies on rather than by undici's own `Dispatcher` type, so that these declarations do not load
 * undici's types (and, through them, Node's) into every program that imports `@sluice/core`.
 */
export interface UndiciDispatcher {
  /** Sends one request (the transport calls `request({ origin, path, method, headers, body, signal })`). */
  request(options: object): Promise<object>;
  /** Starts one request with a handler (what undici's `request()` is built on). */
  dispatch(options: object, handler: object): boolean;
  /** Closes the dispatcher gracefully (the transport never calls it: the dispatcher is yours). */
  close(): Promise<void>;
}

/** Options of {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** Most sockets per origin. Default 128. */
  connections?: number | undefined;
  /** How long an idle keep-alive socket stays open, in ms. Default 4000. */
  keepAliveTimeout?: number | undefined;
  /** TCP connect timeout in ms. Default 10000. */
  connectTimeout?: number | undefined;
  /**
   * Ask for compressed responses (`accept-encoding: gzip, deflate, br` as a default header the client and
   * the request can override) and decompress `gzip`, `deflate` and `br` bodies. Default true, as fetch does.
   */
  decompress?: boolean | undefined;
  /**
   * An undici dispatcher of your own (a tuned `Agent`, a `Pool`, a `MockAgent`). The transport does not close it.
   * It cannot be combined with `proxy` or `tls`, which configure the transport's own dispatchers.
   */
  dispatcher?: UndiciDispatcher | undefined;
  /**
   * Proxy for every request: `'env'` (default) honours `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, read once
   * now; a URL sends everything through that proxy (https targets through a `CONNECT` tunnel); `false`
   * connects directly. See NETWORK.md.
   */
  proxy?: ProxyOption | undefined;
  /** Custom CAs, a client certificate for mutual TLS, SNI name, lowest TLS version. See {@link TLSOptions}. */
  tls?: TLSOptions | undefined;
}

const noop = (): void => undefined;

/** Bytes read to keep a connection reusable when a body is dropped; larger rests close the socket. */
const DUMP_LIMIT = 64 * 1024;

type UndiciReadable = Readable & { dump(options: { limit: number; signal?: AbortSignal | undefined }): Promise<void> };

/**
 * The abort signal undici watches for one exchange: the caller's signal plus a precise timer for the
 * headers wait and then for each silence between body chunks. undici accepts any object with
 * `aborted`, `reason` and `addEventListener`, which costs far less per request than an AbortController
 * (and undici's own timeouts tick at one-second resolution).
 */
class ExchangeSignal {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Set only with a caller's signal: no closure per exchange without one. */
  private onCallerAbort: (() => void) | undefined;

  private phase: 'headers' | 'body' = 'headers';

  constructor(private readonly caller: AbortSignal | undefined, timeout: number | false) {
    if (caller !== undefined) {
      if (caller.aborted) {
        this.aborted = true;
        this.reason = caller.reason;
        return;
      }
      this.onCallerAbort = (): void => this.abort(caller.reason);
      caller.addEventListener('abort', this.onCallerAbort, { once: true });
    }
    if (timeout !== false) {
      this.timer = setTimeout(() => this.abort(new TransportTimeoutError(this.phase, timeout)), timeout);
      this.timer.unref();
    }
  }

  /** Headers arrived: from now on the timer measures silence between body chunks. */
  bodyStarted(): void {
    this.phase = 'body';
    this.timer?.refresh();
  }

  /** A chunk arrived: restart the silence timer. */
  chunk(): void {
    this.timer?.refresh();
  }

  /** The exchange is over (body read, dropped or failed): stop the timer and let go of the caller's signal. */
  finish(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.onCallerAbort !== undefined) this.caller!.removeEventListener('abort', this.onCallerAbort);
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) this.listener = undefined;
  }

  private abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.finish();
    this.listener?.();
  }
}

class UndiciBody implements TransportBody {
  constructor(private readonly stream: UndiciReadable, private readonly signal: ExchangeSignal | undefined) {
    // Errors reach readers through the iterator; an unread body must not crash the process.
    stream.on('error', noop);
    signal?.bodyStarted();
  }
  private iterating = false;

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    this.iterating = true;
    return this.signal === undefined ? this.stream[Symbol.asyncIterator]() : this.watched(this.signal);
  }
  private async *watched(signal: ExchangeSignal): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of this.stream) {
        signal.chunk();
        yield chunk as Uint8Array;
      }
    } catch (error) {
      // undici destroys the body with the signal's reason: surface that (a timeout) rather than a generic abort.
      throw signal.aborted ? signal.reason : error;
    } finally {
      signal.finish();
    }
  }
  /** Buffered read on stream events: cheaper than an async iterator for the common small JSON body. */
  readAll(limit: number): Promise<Uint8Array | null> {
    this.iterating = true;
    const { stream, signal } = this;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (): void => {
        stream.off('data', onData).off('end', onEnd).off('error', onError);
        signal?.finish();
      };
      const onData = (chunk: Buffer): void => {
        signal?.chunk();
        size += chunk.length;
        if (size > limit) {
          settle();
          stream.destroy();
          resolve(null);
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = (): void => {
        settle();
        resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
      };
      const onError = (error: unknown): void => {
        settle();
        reject(signal?.aborted ? signal.reason : error);
      };
      stream.on('data', onData).on('end', onEnd).on('error', onError);
    });
  }

  async cancel(): Promise<void> {
    this.signal?.finish();
    if (this.stream.destroyed || this.stream.readableEnded) return;
    // A reader is still attached: drop the socket rather than race it for the rest.
    if (this.iterating) return void this.stream.destroy();
    // Drain a small rest so the keep-alive socket can be reused; give up on a stalled one.
    void this.stream.dump({ limit: DUMP_LIMIT, signal: AbortSignal.timeout(1000) }).catch(noop);
  }
}

/** A compressed body read through a zlib stream; cancelling drops both. */
class DecodedBody implements TransportBody {
  private readonly decoded: Transform;
  constructor(private readonly raw: UndiciBody, encoding: string) {
    // Default (strict) flushing: a truncated compressed body is an error, never silently short data.
    this.decoded = encoding === 'br' ? createBrotliDecompress() : encoding === 'deflate' ? createInflate() : createGunzip();
    this.decoded.on('error', noop);
    pipeline(Readable.from(raw, { objectMode: false }), this.decoded, noop);
  }
  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return this.decoded[Symbol.asyncIterator]();
  }
  async cancel(): Promise<void> {
    this.decoded.destroy();
    await this.raw.cancel();
  }
}

const DECODABLE = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

function flattenHeaders(raw: Record<string, string | string[] | undefined>): {
  headers: Record<string, string>;
  setCookie: string[] | undefined;
} {
  // undici's record is fresh per response: used as it is when every value is a single string (the usual case).
  let plain = true;
  for (const name in raw) {
    const value = raw[name];
    if (typeof value !== 'string' || name === 'set-cookie') {
      plain = false;
      break;
    }
  }
  if (plain) return { headers: raw as Record<string, string>, setCookie: undefined };
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
 * undici's global dispatcher by accident. Compressed responses are decoded like fetch does. Proxies
 * (`HTTPS_PROXY` by default) and TLS settings are its own options (see NETWORK.md).
 *
 * @example
 * ```ts
 * createClient({ baseURL, transport: new UndiciTransport({ connections: 16 }) })
 * createClient({ baseURL, transport: new UndiciTransport({ proxy: 'http://proxy.corp:3128', tls: { ca: { path: 'corp-root.pem' } } }) })
 * ```
 */
export class UndiciTransport implements Transport {
  private readonly dispatcher: Dispatcher | undefined;
  /** The transport's own dispatchers (direct and per proxy), when no `dispatcher` was given. */
  private readonly routes: Routes | undefined;
  private readonly decompress: boolean;
  /** `tls.insecureSkipVerify` is set: server certificates are not checked. */
  readonly insecureTLS: boolean;
  /** `tls` has a client certificate; undefined with a `dispatcher` of your own. */
  readonly clientCertificate: boolean | undefined;
  /** Asks for compressed bodies when `decompress` is on (the client merges it under its own defaults). */
  readonly defaultHeaders: Readonly<Record<string, string>> | undefined;

  constructor(options: UndiciTransportOptions = {}) {
    this.decompress = options.decompress ?? true;
    this.defaultHeaders = this.decompress ? { 'accept-encoding': 'gzip, deflate, br' } : undefined;
    if (options.dispatcher !== undefined) {
      if (options.proxy !== undefined || options.tls !== undefined) {
        throw new ConfigError(options.proxy !== undefined ? 'proxy' : 'tls', 'cannot be combined with dispatcher: configure your own dispatcher instead');
      }
      // What UndiciDispatcher describes is undici's Dispatcher, as the application's undici version declares it.
      this.dispatcher = options.dispatcher as Dispatcher;
      this.insecureTLS = false;
      this.clientCertificate = undefined;
      return;
    }
    const tls = resolveTLS('tls', options.tls);
    this.insecureTLS = tls?.insecure ?? false;
    this.clientCertificate = tls?.clientCertificate ?? false;
    this.routes = new Routes({
      connections: options.connections ?? 128,
      keepAliveTimeout: options.keepAliveTimeout ?? 4000,
      connectTimeout: options.connectTimeout ?? 10_000,
    }, resolveProxy('proxy', options.proxy), tls);
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const signal = request.signal === undefined && request.timeout === false ? undefined : new ExchangeSignal(request.signal, request.timeout);
    let response: Dispatcher.ResponseData;
    const route: Route | undefined = this.routes?.select(request.origin);
    try {
      response = await (this.dispatcher ?? route!.dispatcher).request({
        origin: request.origin,
        path: request.path,
        method: request.method as Dispatcher.HttpMethod,
        headers: request.headers,
        body: request.body as Dispatcher.DispatchOptions['body'],
        signal: signal as unknown as AbortSignal | undefined,
      });
    } catch (error) {
      signal?.finish();
      if (signal?.aborted) throw signal.reason;
      throw (route?.proxy !== undefined && toProxyError(error, route.proxy, request.method, request.origin + request.path)) || error;
    }
    const flat = flattenHeaders(response.headers);
    const encoding = flat.headers['content-encoding']?.trim().toLowerCase();
    const body = this.decompress && encoding !== undefined && DECODABLE.has(encoding)
      ? new DecodedBody(new UndiciBody(response.body as UndiciReadable, signal), encoding === 'x-gzip' ? 'gzip' : encoding)
      : new UndiciBody(response.body as UndiciReadable, signal);
    return { status: response.statusCode, headers: flat.headers, setCookie: flat.setCookie, body };
  }

  async close(): Promise<void> {
    await this.routes?.close();
  }

  isTimeout(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
  }
}
