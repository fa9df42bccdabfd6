import { peekBody } from './body-peek.js';
import { DecodeError } from './errors.js';
import { ResponseHeaders } from './headers.js';
import { describeRequest } from './redact.js';
import type { TransportBody } from './transport/types.js';

/** Hooks the client attaches to a body: called once when it ends or is dropped, and to type its errors. */
export interface BodyWatch {
  done(): void;
  mapError(error: unknown): unknown;
}

const NO_WATCH: BodyWatch = { done() {}, mapError: (e) => e };

/**
 * The answer to a request. The body can be read once: as JSON, text, bytes, or streamed with
 * `for await (const chunk of res.body)`. Buffered reads stop with a {@link DecodeError} past
 * `maxResponseBytes`.
 *
 * @example
 * ```ts
 * const res = await client.get('report.csv')
 * for await (const chunk of res.body) process.stdout.write(chunk)
 * ```
 */
export class SluiceResponse {
  /** HTTP status code. */
  readonly status: number;
  /** Response headers. */
  readonly headers: ResponseHeaders;
  /** Request method. */
  readonly method: string;
  /** The URL that answered (after redirects). May carry credentials: redact before logging. */
  readonly url: string;
  /** Whether at least one redirect was followed. */
  readonly redirected: boolean;
  private used = false;
  private ended = false;
  private afterEnd: (() => void) | undefined;

  constructor(
    init: { status: number; headers: ResponseHeaders; method: string; url: string; redirected: boolean },
    private source: TransportBody,
    private readonly maxBytes: number,
    private readonly watch: BodyWatch = NO_WATCH,
  ) {
    this.status = init.status;
    this.headers = init.headers;
    this.method = init.method;
    this.url = init.url;
    this.redirected = init.redirected;
  }

  /** True for statuses 200-299. */
  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  /** Whether the body was read or cancelled already. */
  get bodyUsed(): boolean {
    return this.used;
  }

  /** The body as a stream of byte chunks, as they arrive. Breaking out of the loop releases the connection. */
  get body(): AsyncIterable<Uint8Array> {
    return { [Symbol.asyncIterator]: () => this.iterate() };
  }

  private async *iterate(): AsyncGenerator<Uint8Array> {
    this.claim();
    let finished = false;
    try {
      for await (const chunk of this.source) yield chunk;
      finished = true;
    } catch (error) {
      throw this.watch.mapError(error);
    } finally {
      if (!finished) await this.source.cancel();
      this.end();
    }
  }

  private claim(): void {
    if (this.used) throw new TypeError('Response body was already read');
    this.used = true;
  }

  /** The whole body as bytes (at most `maxResponseBytes`). */
  async bytes(): Promise<Uint8Array> {
    if (this.source.readAll !== undefined) {
      // The transport's own buffered read: the hot path of getJSON on undici.
      this.claim();
      return this.readAll(this.source.readAll.bind(this.source));
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of this.body) {
      size += chunk.byteLength;
      // Leaving the loop drops the rest of the body and releases the connection.
      if (size > this.maxBytes) throw this.tooLarge();
      chunks.push(chunk);
    }
    if (chunks.length === 1) return chunks[0]!;
    return Buffer.concat(chunks, size);
  }

  private async readAll(read: (limit: number) => Promise<Uint8Array | null>): Promise<Uint8Array> {
    let bytes: Uint8Array | null;
    try {
      bytes = await read(this.maxBytes);
    } catch (error) {
      throw this.watch.mapError(error);
    } finally {
      this.end();
    }
    if (bytes === null) throw this.tooLarge();
    return bytes;
  }

  private tooLarge(): DecodeError {
    return new DecodeError(`${describeRequest(this.method, this.url)}: response body exceeds maxResponseBytes (${this.maxBytes} bytes)`, this.status);
  }

  /** The whole body decoded as UTF-8. */
  async text(): Promise<string> {
    const bytes = await this.bytes();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  }

  /**
   * The body parsed as JSON. An empty body gives `undefined`; invalid JSON a {@link DecodeError} with an
   * excerpt of what arrived.
   */
  async json<T = unknown>(): Promise<T> {
    const text = await this.text();
    if (text.length === 0) return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (cause) {
      throw new DecodeError(
        `${describeRequest(this.method, this.url)}: response is not valid JSON: ${(cause as Error).message}`,
        this.status,
        text,
        { cause },
      );
    }
  }

  /**
   * The first `limit` bytes of the body (fewer when it is shorter), read without using it up: a later read
   * gets the whole body. For a plugin that decides on the start of an error answer (the CSRF plugin).
   */
  async peek(limit: number): Promise<Uint8Array> {
    if (this.used) throw new TypeError('Response body was already read');
    try {
      const peeked = await peekBody(this.source, limit);
      this.source = peeked.body;
      return peeked.bytes;
    } catch (error) {
      // The body broke while peeking: it is done for every reader.
      const mapped = this.watch.mapError(error);
      this.used = true;
      this.end();
      throw mapped;
    }
  }

  /** Drops the body without reading it and releases the connection. */
  async cancel(): Promise<void> {
    if (this.used) return;
    this.used = true;
    try {
      await this.source.cancel();
    } finally {
      this.end();
    }
  }

  /**
   * Runs `fn` once the body has been read to the end, dropped or has failed (at once if it already has).
   * The client uses it to stop a request's deadline timer; one callback per response.
   */
  onBodyEnd(fn: () => void): void {
    if (this.ended) fn();
    else this.afterEnd = fn;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.watch.done();
    this.afterEnd?.();
  }
}
