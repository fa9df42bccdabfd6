import { AbortError, HttpError, NetworkError, TimeoutError, type Client, type RetryOptions, type SluiceResponse } from '@sluice/core';
import { ForeignOriginError, ODataFormatError } from '../errors.js';
import type { DecodeContext, ODataProtocol } from '../protocol/types.js';
import { toODataError } from './error-body.js';

/** Everything a read needs, resolved once per query run (version known, metadata if loaded). */
export interface ReadContext {
  client: Client;
  protocol: ODataProtocol;
  decode: DecodeContext;
  /** Origin of the service root; next links elsewhere are refused unless allowed. */
  serviceOrigin: string;
  allowedOrigins: ReadonlySet<string>;
  /** Headers of every request of this read. */
  headers: Record<string, string>;
  /** How many times a failed page is requested again. */
  pageRetries: number;
  /** Retry settings, for the wait between page retries. */
  retry: RetryOptions;
}

const JSON_TYPE = /(^|\/|\+)json\b/i;

/**
 * Sends one GET through the core client (its retries, timeouts and plugins apply) and turns an error
 * status into an ODataError, reading the error body.
 */
export async function send(ctx: ReadContext, url: string, signal: AbortSignal | undefined, accept?: string): Promise<SluiceResponse> {
  const headers = accept === undefined ? ctx.headers : { ...ctx.headers, accept };
  const response = await ctx.client.request({ method: 'GET', path: url, headers, signal, throwHttpErrors: false });
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
 * Resolves a next link against the page that carried it (v4 next links may be relative) and refuses
 * another origin unless allowed: credentials must not leave the service's origin.
 */
export function resolveNextLink(ctx: ReadContext, link: string, pageURL: string): string {
  const url = new URL(link, pageURL);
  if (url.origin !== ctx.serviceOrigin && !ctx.allowedOrigins.has(url.origin)) throw new ForeignOriginError(url.origin, ctx.serviceOrigin);
  // Absolute links are followed exactly as given; only relative ones are resolved.
  return /^[a-z][a-z0-9+.-]*:/i.test(link) ? link : url.href;
}

/**
 * Whether asking for the same page again may help: connection failures, timeouts, truncated bodies,
 * 5xx, 408 and 429. Client errors, refusals and the caller's abort are final.
 */
export function isRetryable(error: unknown): boolean {
  if (error instanceof AbortError) return false;
  if (error instanceof HttpError) return error.status >= 500 || error.status === 408 || error.status === 429;
  if (error instanceof NetworkError || error instanceof TimeoutError) return true;
  if (error instanceof SyntaxError) return true;
  if (error instanceof ODataFormatError) return false;
  return false;
}
