import { AbortError, DeadlineError, HttpError, NetworkError, TimeoutError, type Client, type RetryOptions, type SluiceResponse } from '@sluice/core';
import { ODataFormatError } from '../errors.js';
import type { LinkPolicy } from '../links/policy.js';
import type { DecodeContext, ODataProtocol } from '../protocol/types.js';
import { spanContext, type ODataSpan, type PageCounter } from '../telemetry.js';
import { toODataError } from './error-body.js';
import type { PrecisionGuard } from './precision.js';

/** Size limits of a read, in bytes (undefined: no limit). */
export interface ReadLimits {
  maxRecordBytes: number | undefined;
  maxPageBytes: number | undefined;
}

/** Everything a read needs, resolved once per query run (version known, metadata if loaded). */
export interface ReadContext {
  client: Client;
  protocol: ODataProtocol;
  decode: DecodeContext;
  /** Where server-given links may lead. */
  links: LinkPolicy;
  /** The `$metadata` URL: relative context URLs are resolved against it. */
  metadataURL: string;
  /** Headers of every request of this read (format and version headers win over the caller's). */
  headers: Record<string, string>;
  /** The caller's per-read options: timeout, and the deadline as an absolute time for every request of the read. */
  call: { timeout?: number | false | undefined; deadline?: Date | false | undefined };
  /** How many times a page whose body broke is resumed. */
  pageRetries: number;
  /** Retry settings, for the wait before resuming a page. */
  retry: RetryOptions;
  /** Query options of the service URL, kept on every request (next links included). */
  serviceParams: readonly (readonly [string, string])[];
  /** Stop with PagingError after this many pages. */
  maxPages: number | undefined;
  limits: ReadLimits;
  /** Checks a response's declared version against the protocol in use (throws ODataVersionError). */
  checkVersion(response: SluiceResponse): void;
  /** What the read is, for the span of each of its requests; `pages` numbers the pages of a collection read. */
  span?: { readonly base: ODataSpan; readonly pages: PageCounter | undefined } | undefined;
  /** The client's watch over Int64/Decimal precision (v4 services that ignore IEEE754Compatible). */
  precision?: PrecisionGuard | undefined;
  /**
   * Reads each parsed item of the record array in place of the record decoding (`protocol.decodeRecord`) and
   * the removal of control information: a delta read's items, which are entities or removals. It throws for an
   * item it cannot read (a record error in its place).
   */
  item?: ((raw: unknown) => unknown) | undefined;
}

const JSON_TYPE = /(^|\/|\+)json\b/i;

/**
 * Sends one GET through the core client (its retries, timeouts and plugins apply), checks the declared
 * version, and turns an error status into an ODataError, reading the error body.
 */
export async function send(ctx: ReadContext, url: string, signal: AbortSignal | undefined, accept?: string): Promise<SluiceResponse> {
  const headers = accept === undefined ? ctx.headers : { ...ctx.headers, accept };
  const { timeout, deadline } = ctx.call;
  const span = ctx.span;
  const response = await ctx.client.request({
    method: 'GET', path: url, headers, signal, throwHttpErrors: false,
    ...(timeout !== undefined ? { timeout } : {}), ...(deadline !== undefined ? { deadline } : {}),
    ...(span !== undefined ? { context: spanContext(span.pages === undefined ? span.base : { ...span.base, page: span.pages.number(url) }) } : {}),
  });
  try {
    ctx.checkVersion(response);
  } catch (error) {
    await response.cancel();
    throw error;
  }
  if (response.status >= 400) throw await toODataError(response);
  return response;
}

/** Throws unless the response says it is JSON. */
export async function expectJson(response: SluiceResponse): Promise<void> {
  const type = response.headers.get('content-type');
  if (type !== null && JSON_TYPE.test(type)) return;
  await response.cancel();
  throw new ODataFormatError(`${response.method} expected a JSON response, got content-type ${type ?? '(none)'}`, response.status);
}

/**
 * The base a page's relative next link is resolved against (OData JSON Format 4.01 section 4.6): the
 * page's context URL, itself relative to the `$metadata` document, or the request URL without one.
 */
export function nextLinkBase(ctx: ReadContext, context: string | undefined, pageURL: string): string {
  if (context === undefined) return pageURL;
  try {
    return new URL(context, ctx.metadataURL).href;
  } catch {
    return pageURL;
  }
}

/**
 * Whether resuming the same page may help. The core has already retried statuses and failed
 * connections, so only a body that broke after the response began (reset, truncation, a timeout while
 * reading) is worth another request here; the caller's abort is final.
 */
export function isResumable(error: unknown): boolean {
  // A passed deadline is final: the whole read's time is up.
  if (error instanceof AbortError || error instanceof HttpError || error instanceof DeadlineError) return false;
  if (error instanceof NetworkError || error instanceof TimeoutError) return true;
  return error instanceof SyntaxError;
}
