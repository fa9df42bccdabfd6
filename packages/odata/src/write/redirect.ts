// What a write does with a 3xx answer: a 307/308 to the same origin is sent again there (method and body
// kept, RFC 9110 section 15.4.8/15.4.9); every other redirect is an error, never a quiet result.
import type { SluiceResponse } from '@sluice/core';
import { toODataError } from '../read/error-body.js';
import { LogonRedirectError, WriteRedirectError } from './errors.js';
import type { ExchangeInit, WriteHost } from './host.js';

/** Paths and queries of sign-in pages: SAP's ICF logon, SAML/SSO endpoints, OAuth authorize, `/login`. */
const LOGON = /log[io]n|sign-?in|saml|\bsso\b|authorize|\/sap\/public\/bc\/icf\//i;

/** Whether a redirect target looks like a logon page (only its path and query are looked at). */
export function isLogonPage(location: URL): boolean {
  return LOGON.test(location.pathname + location.search);
}

/** Whether a status is a redirect a write must not take for its result (304 is a conditional GET's answer). */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400 && status !== 304;
}

/**
 * The error for a redirect answer that is not followed: LogonRedirectError to a logon page, else
 * WriteRedirectError. Reads and releases the answer's body. @internal
 */
export async function redirectError(response: SluiceResponse, location: string | undefined, why: string): Promise<WriteRedirectError> {
  const plain = await toODataError(response);
  const target = location === undefined || !URL.canParse(location, response.url) ? undefined : new URL(location, response.url);
  if (target !== undefined && isLogonPage(target)) return new LogonRedirectError(plain, target.href);
  return new WriteRedirectError(plain, target?.href ?? location, why);
}

/**
 * Sends a write through `host.exchange`, following a `307`/`308` to the same origin with method, body
 * and headers kept (at most `maxRedirects` times); any other redirect answer is thrown (see
 * {@link redirectError}). Status errors are left to the caller. @internal
 */
export async function exchangeWrite(host: WriteHost, init: ExchangeInit): Promise<SluiceResponse> {
  const max = host.writeSettings().maxRedirects ?? 10;
  let current = init;
  for (let hops = 0; ; hops++) {
    const response = await host.exchange(current);
    if (!isRedirectStatus(response.status)) return response;
    const header = response.headers.get('location') ?? undefined;
    const from = new URL(current.url);
    const target = header === undefined || !URL.canParse(header, current.url) ? undefined : new URL(header, current.url);
    let why: string;
    if (target === undefined) why = 'a redirect without a usable Location; the write was not applied';
    else if (response.status !== 307 && response.status !== 308) why = `only 307 and 308 keep the method and body of a write; ${response.status} is not followed and the write was not applied`;
    else if (target.origin !== from.origin) why = 'a write is not sent on to another origin; the write was not applied';
    else if (hops >= max) why = `more than ${max} redirects (maxRedirects); the write was not applied`;
    else if (isLogonPage(target)) why = 'a logon page';
    else {
      await response.cancel();
      target.username = '';
      target.password = '';
      current = { ...current, url: target.href };
      continue;
    }
    throw await redirectError(response, target?.href ?? header, why);
  }
}
