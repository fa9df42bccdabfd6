// One request to the writable part of the test service, with the helpers every handler needs.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { badRequest, ODataServerError } from '../errors.js';
import type { ODataVersion } from '../model.js';
import { send } from '../respond.js';
import type { Dialect } from './orders.js';

/** A request as the write handlers see it. */
export interface Exchange {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly version: ODataVersion;
  /** Absolute service root, trailing slash. */
  readonly root: string;
  /** Path after the root, percent-decoded. */
  readonly rest: string;
  /** Raw query string without `?`. */
  readonly search: string;
  readonly body: string;
  /** The method, with v2 `X-HTTP-Method` tunnelling applied to POST. */
  readonly method: string;
  readonly dialect: Dialect;
}

/** Builds the exchange; `X-HTTP-Method` on a POST names the real method (SAP gateway tunnelling). */
export function exchange(req: IncomingMessage, res: ServerResponse, version: ODataVersion, root: string, rest: string, search: string, body: string): Exchange {
  const tunnelled = req.method === 'POST' ? req.headers['x-http-method'] : undefined;
  const method = (typeof tunnelled === 'string' ? tunnelled : req.method ?? 'GET').toUpperCase();
  const accept = `${String(req.headers.accept ?? '')} ${String(req.headers['content-type'] ?? '')}`;
  return { req, res, version, root, rest, search, body, method, dialect: { version, ieee: /IEEE754Compatible=true/i.test(accept) } };
}

/** The request body as a JSON object, or a 400. */
export function jsonBody(x: Exchange): Record<string, unknown> {
  const type = String(x.req.headers['content-type'] ?? '');
  if (!/json/i.test(type)) throw new ODataServerError(415, 'UnsupportedMediaType', `Expected a JSON body, got content-type '${type}'`);
  let value: unknown;
  try {
    value = JSON.parse(x.body);
  } catch {
    throw badRequest('The request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('The request body must be a JSON object');
  return value as Record<string, unknown>;
}

/** The preferences of the `Prefer` header, lower-case (`return=minimal`, `respond-async`). */
export function prefers(x: Exchange, preference: string): boolean {
  return String(x.req.headers.prefer ?? '').toLowerCase().split(/\s*,\s*/).some((p) => p === preference || p.startsWith(`${preference};`));
}

/** The OData version header of the exchange's version. */
export function versionHeader(x: Exchange): Record<string, string> {
  return x.version === 4 ? { 'odata-version': '4.0' } : { dataserviceversion: '2.0' };
}

/** Answers with a JSON body (or none when `body` is undefined). */
export async function reply(x: Exchange, status: number, headers: Record<string, string>, body?: string): Promise<void> {
  const h = { ...versionHeader(x), ...headers };
  if (body === undefined) {
    x.res.writeHead(status, { ...h, 'content-length': '0' }).end();
    return;
  }
  const type = x.version === 4 ? `application/json;odata.metadata=minimal;IEEE754Compatible=${x.dialect.ieee}` : 'application/json;charset=utf-8';
  await send(x.res, status, { 'content-type': type, ...h }, body);
}

/** `If-Match` against `etag` (RFC 9110 section 13.1.1): a 412 with the current ETag, or a 428 when required and absent. */
export function checkIfMatch(x: Exchange, etag: string, required: boolean): void {
  const header = x.req.headers['if-match'];
  if (header === undefined) {
    if (required) throw new ODataServerError(428, 'PreconditionRequired', 'This entity set requires If-Match on updates and deletes');
    return;
  }
  const tags = header.split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(etag)) return;
  throw new ODataServerError(412, 'PreconditionFailed', 'The entity was changed since the given ETag was read', undefined, { etag });
}

/** `If-None-Match` on a read: true when it matches, so the answer is 304. */
export function notModified(x: Exchange, etag: string): boolean {
  const header = x.req.headers['if-none-match'];
  if (header === undefined) return false;
  const tags = header.split(',').map((t) => t.trim());
  return tags.includes('*') || tags.includes(etag);
}

/** The request body as text; GET and HEAD bodies are drained unread. */
export function readRequestBody(req: IncomingMessage): Promise<string> {
  if (req.method === 'GET' || req.method === 'HEAD') {
    req.resume();
    return Promise.resolve('');
  }
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => resolve(''));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}
