import { HttpError, redactURL, SluiceError } from '@sluice/core';

/** One entry of an OData error's `details` array (OData JSON Format 4.0 section 21). */
export interface ODataErrorDetail {
  code: string;
  message: string;
  target?: string;
}

/**
 * The service answered with an OData error body (v4 JSON, v2 JSON or SAP's XML). It is an
 * {@link HttpError} too, so `status` and the redacted `url` are there; `code`, `message`, `target` and
 * `details` come from the body.
 *
 * @example
 * ```ts
 * try { await od.from('Products').filter('Nope eq 1').list() } catch (err) {
 *   if (err instanceof ODataError) console.error(err.status, err.code, err.odataMessage)
 * }
 * ```
 */
export class ODataError extends HttpError {
  /** The service's error code (may be an empty string). */
  readonly code: string;
  /** The service's message, without the request line that `message` adds. */
  readonly odataMessage: string;
  /** What the error is about, such as a property name, when the service says. */
  readonly target: string | undefined;
  /** Further errors the service listed. */
  readonly details: readonly ODataErrorDetail[];

  constructor(init: ConstructorParameters<typeof HttpError>[0] & {
    code: string; message: string; target?: string | undefined; details?: readonly ODataErrorDetail[];
  }) {
    super(init);
    this.code = init.code;
    this.odataMessage = init.message;
    this.target = init.target;
    this.details = init.details ?? [];
    this.message = `${this.method} ${this.url} failed with status ${this.status}: ${init.code ? init.code + ': ' : ''}${init.message}`;
  }
}

/**
 * A feature the service's OData version cannot express, such as a nested `$expand` or a lambda
 * (`any`/`all`) on an OData v2 service. Thrown when the URL is built.
 */
export class ODataVersionError extends SluiceError {}

/**
 * A next link (or another server-given URL) pointed to an origin other than the service's and the
 * caller did not allow it: following it could send credentials elsewhere.
 */
export class ForeignOriginError extends SluiceError {
  /** The refused origin. */
  readonly origin: string;
  constructor(origin: string, serviceOrigin: string) {
    super(`Refused to follow a link to ${origin}: the service is at ${serviceOrigin} (add it to allowedOrigins to permit it)`);
    this.origin = origin;
  }
}

/**
 * A page of a collection could not be read (status error after the core's retries, connection reset,
 * truncated or unparseable body). `willRetry` says whether the stream asks for the same page again;
 * `cause` is the underlying error.
 */
export class PageError extends SluiceError {
  /** The page URL, credentials and sensitive query values redacted. */
  readonly url: string;
  /** 1 for the first failure of this page. */
  readonly attempt: number;
  /** Whether the stream will request the same page again. */
  readonly willRetry: boolean;
  constructor(url: string, attempt: number, willRetry: boolean, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Reading a page failed (attempt ${attempt}${willRetry ? ', will retry' : ', giving up'}): ${why}`, { cause });
    this.url = redactURL(url);
    this.attempt = attempt;
    this.willRetry = willRetry;
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
