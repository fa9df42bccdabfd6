import { Agent } from 'undici';
import type { Readable } from 'node:stream';
import type { Transport, TransportBody, TransportRequest, TransportResponse } from './types.js';

/** Options of {@link UndiciTransport}. */
export interface UndiciTransportOptions {
  /** Most sockets per origin. Default 128. */
  connections?: number;
  /** How long an idle keep-alive socket stays open, in ms. Default 4000. */
  keepAliveTimeout?: number;
  /** TCP connect timeout in ms. Default 10000. */
  connectTimeout?: number;
  /** An undici dispatcher of your own (proxy, mTLS, custom agent). The transport then does not close it. */
  dispatcher?: Agent;
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
 * undici's global dispatcher by accident.
 *
 * @example
 * ```ts
 * createClient({ baseURL, transport: new UndiciTransport({ connections: 16 }) })
 * ```
 */
export class UndiciTransport implements Transport {
  private readonly agent: Agent;
  private readonly ownsAgent: boolean;

  constructor(options: UndiciTransportOptions = {}) {
    this.ownsAgent = options.dispatcher === undefined;
    this.agent = options.dispatcher ?? new Agent({
      connections: options.connections ?? 128,
      keepAliveTimeout: options.keepAliveTimeout ?? 4000,
      connectTimeout: options.connectTimeout ?? 10_000,
      // The client enforces its own timeouts; undici's would fire with other error types.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  }

  async send(request: TransportRequest): Promise<TransportResponse> {
    const { statusCode, headers, body } = await this.agent.request({
      origin: request.origin,
      path: request.path,
      method: request.method as 'GET',
      headers: request.headers,
      body: request.body as string | Uint8Array | undefined,
      signal: request.signal,
    });
    const flat = flattenHeaders(headers);
    return { status: statusCode, headers: flat.headers, setCookie: flat.setCookie, body: new UndiciBody(body as UndiciReadable) };
  }

  async close(): Promise<void> {
    if (this.ownsAgent) await this.agent.close();
  }
}
