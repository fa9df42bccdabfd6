/** A request body the transports accept. Strings and bytes can be replayed on retry; streams cannot. */
export type BodyInit = string | Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;

/** What the client hands a transport: one HTTP exchange, no redirects, no retries. */
export interface TransportRequest {
  /** `scheme://host[:port]` of the target. */
  readonly origin: string;
  /** Path and query, starting with `/`. */
  readonly path: string;
  /** Upper-case method. */
  readonly method: string;
  /**
   * Lower-case header names. Read it, never change it: the client may hand the same object (its default
   * headers) to many requests.
   */
  readonly headers: Record<string, string>;
  /** Body, or undefined. */
  readonly body: BodyInit | undefined;
  /** The caller's signal: aborts the exchange, including the body read. */
  readonly signal: AbortSignal | undefined;
  /**
   * Longest wait for the response headers, then longest silence between two body chunks, in ms; `false`
   * for none. The transport enforces it and fails with an error its {@link Transport.isTimeout} (or a
   * {@link TransportTimeoutError}) recognises.
   */
  readonly timeout: number | false;
}

/** What a transport throws, or errors its body with, when the request's `timeout` elapses. */
export class TransportTimeoutError extends Error {
  constructor(phase: 'headers' | 'body', timeout: number) {
    super(`no ${phase === 'headers' ? 'response headers' : 'body data'} within ${timeout} ms`);
    this.name = 'TransportTimeoutError';
  }
}

/** Whether `error` means the transport's timeout elapsed. */
export function isTransportTimeout(transport: Transport, error: unknown): boolean {
  return error instanceof TransportTimeoutError || transport.isTimeout?.(error) === true;
}

/** A response body as the transport delivers it: bytes as they arrive, and a way to drop the rest. */
export interface TransportBody extends AsyncIterable<Uint8Array> {
  /** Discards what is left of the body and releases the connection. Safe to call twice. */
  cancel(): Promise<void>;
  /**
   * Optional fast path for buffered reads: the whole body, or null (and the rest dropped) as soon as
   * more than `limit` bytes arrive. Without it, the client iterates the body.
   */
  readAll?(limit: number): Promise<Uint8Array | null>;
}

/** What a transport answers: status, lower-case headers (repeated ones joined by `, `), and the body. */
export interface TransportResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  /** Every `set-cookie` value, which cannot be joined. */
  readonly setCookie?: readonly string[] | undefined;
  readonly body: TransportBody;
}

/**
 * The seam between the client and the network (see ARCHITECTURE.md). Nothing above it knows which
 * transport runs: redirects, retries, timeouts and plugins live in the client. Implement it to run sluice
 * over another HTTP stack or to record traffic.
 *
 * @example
 * ```ts
 * const client = createClient({ baseURL, transport: new FetchTransport() })
 * ```
 */
export interface Transport {
  /** Sends one request; rejects with the stack's own error on connection failure or abort. */
  send(request: TransportRequest): Promise<TransportResponse>;
  /** Releases pooled connections; further sends fail. */
  close(): Promise<void>;
  /** Headers this transport wants on every request (such as `accept-encoding`); the client's defaults win. */
  readonly defaultHeaders?: Readonly<Record<string, string>> | undefined;
  /** Whether an error of this transport's own means its timeout elapsed (when it does not throw {@link TransportTimeoutError}). */
  isTimeout?(error: unknown): boolean;
  /** True when the transport does not check server certificates (`tls.insecureSkipVerify`): the client emits `tls.insecure`. */
  readonly insecureTLS?: boolean | undefined;
  /** Whether the transport presents a TLS client certificate (mutual TLS), when it knows; OAuth's `tls_client_auth` checks it. */
  readonly clientCertificate?: boolean | undefined;
}
