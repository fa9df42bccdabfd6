import { HttpError, redactURL, SluiceError } from '@sluice/core';

/** One entry of an OData error's `details` array (OData JSON Format 4.0 section 21). */
export interface ODataErrorDetail {
  code: string;
  message: string;
  target?: string | undefined;
}

/**
 * An OData request was answered with an error status: every error status of a read, write, action,
 * `$batch` or batch part is one (v2 and v4). It is an {@link HttpError} too, so `status`, the redacted
 * `url`, `headers` and `bodyExcerpt` are there. `code`, `odataMessage`, `target` and `details` come from
 * the body when it is an OData error (v4 JSON, v2 JSON or SAP's XML); with any other body (empty, HTML,
 * plain text) `code` and `odataMessage` are undefined. `cause` is the plain {@link HttpError} of the answer.
 *
 * @example
 * ```ts
 * try { await od.from('Products').filter('Nope eq 1').list() } catch (err) {
 *   if (err instanceof ODataError) console.error(err.status, err.code, err.odataMessage)
 * }
 * ```
 */
export class ODataError extends HttpError {
  /** The service's error code (may be an empty string); undefined when the body is no OData error. */
  readonly code: string | undefined;
  /** The service's message, without the request line that `message` adds; undefined when the body is no OData error. */
  readonly odataMessage: string | undefined;
  /** What the error is about, such as a property name, when the service says. */
  readonly target: string | undefined;
  /** Further errors the service listed. */
  readonly details: readonly ODataErrorDetail[];
  /** The server's id for the request (`x-request-id`, `sap-request-id`, ...), to quote in a support case. */
  readonly requestId: string | undefined;

  constructor(init: ConstructorParameters<typeof HttpError>[0] & {
    code?: string | undefined; message?: string | undefined; target?: string | undefined; details?: readonly ODataErrorDetail[] | undefined; requestId?: string | undefined;
  }) {
    super(init);
    this.code = init.code;
    this.odataMessage = init.message;
    this.target = init.target;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    if (init.code !== undefined || init.message !== undefined) {
      this.message = `${this.method} ${this.url} failed with status ${this.status}: ${init.code ? init.code + ': ' : ''}${init.message ?? ''}`;
    }
  }
}

/**
 * The OData version does not fit: a feature the service's version cannot express (a nested `$expand` or
 * a lambda on an OData v2 service, thrown when the URL is built), or a declared `version` the service
 * contradicts in its first response (`server` then says what it speaks).
 */
export class ODataVersionError extends SluiceError {
  /** The version the service declared in its response headers, when that is the problem. */
  readonly server: string | undefined;
  constructor(message: string, server?: string) {
    super(message);
    this.server = server;
  }
}

/**
 * A page of a collection could not be read (status error after the core's retries, connection reset,
 * truncated or unparseable body). `willRetry` says whether the stream asks for the same page again;
 * `cause` is the underlying error, and `status` / `odataError` repeat the service's answer when it was
 * an error status.
 */
export class PageError extends SluiceError {
  /** The page URL, credentials and sensitive query values redacted. */
  readonly url: string;
  /** 1 for the first failure of this page: reads of the page by the stream, not HTTP attempts (the core retries within a read). */
  readonly attempt: number;
  /** Whether the stream will request the same page again. */
  readonly willRetry: boolean;
  /** The HTTP status when the page was answered with an error status. */
  readonly status: number | undefined;
  /** The service's OData error (code, message, target, details, request id), when it sent one. */
  readonly odataError: ODataError | undefined;
  constructor(url: string, attempt: number, willRetry: boolean, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    // `attempt` counts reads of this page by the stream; each may have been several HTTP attempts (the core's retries).
    super(`Reading a page failed (page read ${attempt}, after the HTTP client's own retries${willRetry ? '; reading it again' : '; giving up'}): ${why}`, { cause });
    this.url = redactURL(url);
    this.attempt = attempt;
    this.willRetry = willRetry;
    this.status = cause instanceof HttpError ? cause.status : undefined;
    this.odataError = cause instanceof ODataError ? cause : undefined;
  }
}

/**
 * Paging went wrong in a way that would lose or repeat data: a next link that is not a string, a next
 * link already followed (the server loops), or more pages than `maxPages`. Records already delivered
 * are never delivered again.
 */
export class PagingError extends SluiceError {
  /** What went wrong. */
  readonly reason: 'invalid-next-link' | 'repeated-next-link' | 'max-pages';
  /** Pages read before the error. */
  readonly pages: number;
  constructor(reason: PagingError['reason'], pages: number, detail: string) {
    super(`Paging stopped after ${pages} page(s): ${detail}`);
    this.reason = reason;
    this.pages = pages;
  }
}

/** A record or a page was larger than `maxRecordBytes` / `maxPageBytes` allow; reading stopped there. */
export class ResponseSizeError extends SluiceError {
  /** Which limit was passed. */
  readonly limit: 'maxRecordBytes' | 'maxPageBytes' | 'maxMetadataBytes';
  /** The limit in bytes. */
  readonly maxBytes: number;
  constructor(limit: ResponseSizeError['limit'], maxBytes: number) {
    super(`${limit === 'maxRecordBytes' ? 'A record' : limit === 'maxPageBytes' ? 'A page' : 'The $metadata document'} is larger than ${limit} (${maxBytes} bytes)`);
    this.limit = limit;
    this.maxBytes = maxBytes;
  }
}

/**
 * One record of a page could not be decoded (invalid JSON inside the element, or a value the decoder
 * rejects). The stream goes on with the next record.
 */
export class RecordDecodeError extends SluiceError {
  /** Position of the record in its page (0-based). */
  readonly index: number;
  /** Up to 200 characters of the record's text. */
  readonly excerpt: string;
  constructor(index: number, excerpt: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Record ${index} of the page could not be decoded: ${why}`, { cause });
    this.index = index;
    this.excerpt = excerpt.slice(0, 200);
  }
}

/** A response that is not what OData promises (wrong content type, missing `value` array, bad count). */
export class ODataFormatError extends SluiceError {
  /** HTTP status of the response. */
  readonly status: number;
  constructor(message: string, status: number, options?: { cause?: unknown }) {
    super(message, options);
    this.status = status;
  }
}
