import { peekBody } from './body-peek.js';
import { DecodeError } from './errors.js';
import { ResponseHeaders } from './headers.js';
import type { KnownSecrets } from './known-secrets.js';
import { describeRequest } from './redact.js';
import type { TransportBody } from './transport/types.js';

/** Hooks the client attaches to a body: called once when it ends or is dropped, and to type its errors. */
export interface BodyWatch {
  done(): void;
  mapError(error: unknown): unknown;
}

const NO_WATCH: BodyWatch = { done() {}, mapError: (e) => e };

/** What {@link SluiceResponse} is made of besides its body. */
export interface SluiceResponseInit {
  status: number;
  /** The headers: a {@link ResponseHeaders}, or the transport's lower-case record (wrapped when first read). */
  headers: ResponseHeaders | Readonly<Record<string, string>>;
  /** Every `set-cookie` value, when `headers` is a record. */
  setCookie?: readonly string[] | undefined;
  method: string;
  url: string;
  redirected: boolean;
  /** The secrets of the client that made the request: scrubbed from errors built from this response. */
  secrets?: KnownSecrets | undefined;
}

const JSON_TYPE = /(^|\/|\+)json\b/i;
/** The last content type found to be JSON: most services send the same one every time, so the regex runs once. */
let lastJSONType = 'application/json';

function isJSONType(type: string): boolean {
  if (type === lastJSONType) return true;
  if (!JSON_TYPE.test(type)) return false;
  lastJSONType = type;
  return true;
}

function asBytes(_response: SluiceResponse, bytes: Uint8Array): Uint8Array {
  return bytes;
}

function asText(_response: SluiceResponse, bytes: Uint8Array): string {
  if (Buffer.isBuffer(bytes)) return bytes.toString('utf8');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

function asJSON(response: SluiceResponse, bytes: Uint8Array): unknown {
  const text = asText(response, bytes);
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    const error = new DecodeError(
      `${describeRequest(response.method, response.url)}: response is not valid JSON: ${(cause as Error).message}`,
      response.status,
      text,
      { cause },
    );
    throw response.secrets?.scrubError(error) ?? error;
  }
}

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
  /** Request method. */
  readonly method: string;
  /** The URL that answered (after redirects). May carry credentials: redact before logging. */
  readonly url: string;
  /** Whether at least one redirect was followed. */
  readonly redirected: boolean;
  /**
   * The known secrets of the client that made the request (undefined for a response made elsewhere):
   * `readErrorBody` and the errors this response builds scrub them.
   */
  readonly secrets: KnownSecrets | undefined;
  private used = false;
  private ended = false;
  private afterEnd: (() => void) | undefined;
  private headerView: ResponseHeaders | undefined;
  private readonly rawHeaders: Readonly<Record<string, string>> | undefined;
  private readonly setCookie: readonly string[] | undefined;

  constructor(
    init: SluiceResponseInit,
    private source: TransportBody,
    private readonly maxBytes: number,
    private readonly watch: BodyWatch = NO_WATCH,
  ) {
    this.status = init.status;
    if (init.headers instanceof ResponseHeaders) this.headerView = init.headers;
    else this.rawHeaders = init.headers;
    this.setCookie = init.setCookie;
    this.method = init.method;
    this.url = init.url;
    this.redirected = init.redirected;
    this.secrets = init.secrets;
  }

  /** Response headers. */
  get headers(): ResponseHeaders {
    return (this.headerView ??= new ResponseHeaders(this.rawHeaders!, this.setCookie));
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
  bytes(): Promise<Uint8Array> {
    return this.read(asBytes);
  }

  /** The whole body decoded as UTF-8. */
  text(): Promise<string> {
    return this.read(asText);
  }

  /**
   * The body parsed as JSON. An empty body gives `undefined`; invalid JSON a {@link DecodeError} with an
   * excerpt of what arrived.
   */
  json<T = unknown>(): Promise<T> {
    return this.read(asJSON) as Promise<T>;
  }

  /**
   * The body parsed as JSON for `client.getJSON`: a content type that is not JSON gives a
   * {@link DecodeError} with an excerpt of the body (a 204 passes). Internal.
   */
  expectJSON<T>(): Promise<T> {
    const type = this.rawHeaders !== undefined ? this.rawHeaders['content-type'] : this.headerView!.get('content-type') ?? undefined;
    if (type === undefined || isJSONType(type) || this.status === 204) return this.read(asJSON) as Promise<T>;
    return this.text().catch(() => '').then((excerpt) => {
      const error = new DecodeError(`${describeRequest('GET', this.url)}: expected a JSON response, got content-type ${type}`, this.status, excerpt);
      throw this.secrets?.scrubError(error) ?? error;
    });
  }

  /** Reads the whole body (at most `maxResponseBytes`) and decodes it, in one promise step on the transport's buffered read. */
  private read<T>(decode: (response: SluiceResponse, bytes: Uint8Array) => T): Promise<T> {
    const source = this.source;
    if (this.used) return Promise.reject(new TypeError('Response body was already read'));
    if (source.readAll === undefined) return this.collect().then((bytes) => decode(this, bytes));
    // The transport's own buffered read: the hot path of getJSON on undici.
    this.used = true;
    return source.readAll(this.maxBytes).then(
      (bytes) => {
        this.end();
        if (bytes === null) throw this.tooLarge();
        return decode(this, bytes);
      },
      (error: unknown) => {
        // Typed first: a body that failed must not count as done (the breaker records a late failure).
        const mapped = this.watch.mapError(error);
        this.end();
        throw mapped;
      },
    );
  }

  private async collect(): Promise<Uint8Array> {
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

  private tooLarge(): DecodeError {
    const error = new DecodeError(`${describeRequest(this.method, this.url)}: response body exceeds maxResponseBytes (${this.maxBytes} bytes)`, this.status);
    return this.secrets?.scrubError(error) ?? error;
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
