import { HttpError, redactURL, SluiceError } from '@sluice/core';
import { ODataError } from '../errors.js';

/** The init an ODataError is built from, taken from an error read off a response. */
function initOf(error: HttpError): ConstructorParameters<typeof ODataError>[0] {
  const odata = error instanceof ODataError ? error : undefined;
  return {
    status: error.status, method: error.method, url: error.url, headers: error.headers, bodyExcerpt: error.bodyText, bodyTruncated: error.bodyTruncated,
    cause: odata === undefined ? error : error.cause,
    code: odata?.code, message: odata?.odataMessage, target: odata?.target, details: odata?.details ?? [], requestId: odata?.requestId,
  };
}

/**
 * `412 Precondition Failed`: the entity changed since its ETag was read (SPEC 7), so the update or
 * delete was not applied. `currentETag` is the ETag the server sent with the answer, when it did: read
 * the entity again, merge, and retry with it.
 *
 * @example
 * ```ts
 * try { await orders.key(7).update({ Status: 'Shipped' }, { etag: order }) } catch (err) {
 *   if (err instanceof PreconditionFailedError) console.warn('changed meanwhile; now', err.currentETag)
 * }
 * ```
 */
export class PreconditionFailedError extends ODataError {
  /** The entity's current ETag, from the 412's `ETag` header. */
  readonly currentETag: string | undefined;
  constructor(error: HttpError) {
    super(initOf(error));
    this.currentETag = error.headers['etag'];
    this.message = `${this.method} ${this.url}: the entity was changed since its ETag was read (412 Precondition Failed)${this.odataMessage ? `: ${this.odataMessage}` : ''}`;
  }
}

/**
 * `428 Precondition Required`: the service demands `If-Match` on this update or delete. Pass the ETag
 * (`{ etag: entity }` from an earlier read, or a string), or `{ etag: '*' }` to overwrite whatever is
 * there.
 */
export class PreconditionRequiredError extends ODataError {
  constructor(error: HttpError) {
    super(initOf(error));
    this.message = `${this.method} ${this.url}: the service requires If-Match (428 Precondition Required); pass { etag } from a read, or '*'`;
  }
}

/**
 * A write (create, update, delete, action, `$batch` or one of its parts) was answered with a redirect
 * that sluice does not follow: `301`, `302`, `303`, or a `307`/`308` to another origin, to a logon page,
 * past the client's `maxRedirects`, or without a `Location`. The write was not applied where it was sent;
 * `location` says where the server pointed (credentials and sensitive query values redacted).
 */
export class WriteRedirectError extends ODataError {
  /** The redirect's `Location`, resolved against the request URL and redacted; undefined when there was none. */
  readonly location: string | undefined;
  constructor(error: HttpError, location: string | undefined, why: string) {
    const headers = error.headers['location'] === undefined ? error.headers : { ...error.headers, location: redactURL(error.headers['location']) };
    super({ ...initOf(error), headers });
    this.location = location === undefined ? undefined : redactURL(location);
    this.message = `${this.method} ${this.url} was answered ${this.status} (redirect${this.location === undefined ? ' without a Location' : ` to ${this.location}`}): ${why}`;
  }
}

/**
 * A write was redirected to a logon page (an SAP gateway answers `302` to its logon form once the session
 * expired, an identity provider's sign-in page, ...): the write was not applied. Sign in again (renew
 * the session or the credentials) and resend it.
 *
 * @example
 * ```ts
 * try { await od.from('Orders').key(7).update({ Status: 'Shipped' }) } catch (err) {
 *   if (err instanceof LogonRedirectError) console.error('session ended; logon page at', err.location)
 * }
 * ```
 */
export class LogonRedirectError extends WriteRedirectError {
  constructor(error: HttpError, location: string) {
    super(error, location, 'the session ended or the credentials were refused; the write was not applied');
    this.message = `${this.method} ${this.url} was redirected (${this.status}) to a logon page (${this.location ?? ''}): the session ended or the credentials were refused; the write was not applied`;
  }
}

/** Turns an error status into the typed error for it: 412 and 428 get their own classes. */
export function writeError(error: ODataError): ODataError {
  if (error.status === 412) return new PreconditionFailedError(error);
  if (error.status === 428) return new PreconditionRequiredError(error);
  return error;
}

/**
 * A write was asked of a query that cannot take it: `create()` on a query with `$filter`, `$top` or other
 * read options, `update()`/`delete()` on a query with `$select`/`$expand`, or a bound operation on a
 * service version without them. Nothing was sent.
 */
export class ReadOnlyQueryError extends SluiceError {}
