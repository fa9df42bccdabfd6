// Turns the responses of a batch into results: typed bodies decoded like single requests, typed errors.
import { HttpError, redactURL } from '@sluice/core';
import { ODataError } from '../errors.js';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { DecodeContext, ODataProtocol } from '../protocol/types.js';
import { withoutControl } from '../read/control.js';
import { parseErrorBody } from '../read/error-body.js';
import type { PrecisionGuard } from '../read/precision.js';
import { recordDecoder } from '../v4/values.js';
import { withETag } from '../write/etag.js';
import { LogonRedirectError, writeError, WriteRedirectError } from '../write/errors.js';
import { isLogonPage, isRedirectStatus } from '../write/redirect.js';
import type { BatchPartResponse } from './types.js';

/**
 * What one operation of a batch answered, in request order. `ok` tells success (status < 400) from
 * failure; a failure carries the typed `error` (ODataError, PreconditionFailedError on 412, ...). Every
 * operation of a failed changeset has `ok: false` and the changeset's error.
 */
export interface BatchResult<T = unknown> {
  readonly ok: boolean;
  readonly status: number;
  /** The operation's response headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body decoded like a single request's: an entity, an array for a collection read; undefined without a body. */
  readonly value: T | undefined;
  /** The entity's ETag (header or body). */
  readonly etag: string | undefined;
  /** `Location` (or `OData-EntityId`) of a created entity, absolute. */
  readonly location: string | undefined;
  /** The error when `ok` is false. */
  readonly error: ODataError | undefined;
}

/** How to read one operation's body. @internal */
export interface ResultShape {
  readonly method: string;
  /** Absolute URL of the operation, for errors and relative Locations. */
  readonly url: string;
  readonly collection: boolean;
  readonly entityType: EntityTypeInfo | undefined;
}

function errorOf(r: BatchPartResponse, shape: ResultShape, location: string | undefined): ODataError {
  const parsed = parseErrorBody(r.body);
  const init = {
    status: r.status, method: shape.method, url: redactURL(shape.url), headers: r.headers, bodyExcerpt: r.body.slice(0, 1024),
    code: parsed?.code, message: parsed?.message, target: parsed?.target, details: parsed?.details,
    requestId: r.headers['x-request-id'] ?? r.headers['sap-request-id'],
  };
  const error = new ODataError({ ...init, cause: new HttpError(init) });
  if (isRedirectStatus(r.status)) {
    // A part is never followed: a redirect is no result of the operation (a logon page: the session ended).
    if (location !== undefined && URL.canParse(location) && isLogonPage(new URL(location))) return new LogonRedirectError(error, location);
    return new WriteRedirectError(error, location, 'a batch operation answered with a redirect was not applied there');
  }
  return writeError(error);
}

function collectionOf(json: unknown, protocol: ODataProtocol, ctx: DecodeContext): unknown[] | undefined {
  for (const path of protocol.recordPaths) {
    let node: unknown = json;
    for (const key of path) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
    if (Array.isArray(node)) {
      const decodeRecord = recordDecoder(protocol, ctx);
      return withoutControl(decodeRecord ? node.map((raw) => decodeRecord(raw, ctx)) : node);
    }
  }
  return undefined;
}

/**
 * One operation's result from its response (or its changeset's single error response). Its body is parsed
 * through the client's precision guard (`precision`) by the part's content type, as a single request's. @internal
 */
export function resultOf(r: BatchPartResponse, shape: ResultShape, protocol: ODataProtocol, decode: Omit<DecodeContext, 'entityType'>, precision?: PrecisionGuard): BatchResult {
  const base = { status: r.status, headers: r.headers };
  const locationHeader = r.headers['location'] ?? r.headers['odata-entityid'];
  const location = locationHeader === undefined ? undefined : URL.canParse(locationHeader, shape.url) ? new URL(locationHeader, shape.url).href : locationHeader;
  if (r.status >= 400 || isRedirectStatus(r.status)) return { ok: false, ...base, value: undefined, etag: undefined, location: undefined, error: errorOf(r, shape, location) };
  let value: unknown;
  if (r.body.trim() !== '' && r.status !== 204) {
    let json: unknown;
    try {
      json = precision === undefined ? JSON.parse(r.body) : precision.parseBody(r.body, r.headers['content-type'], protocol.version, shape.entityType, shape.collection ? 'collection' : 'entity');
    } catch {
      json = undefined;
    }
    const ctx = { ...decode, entityType: shape.entityType };
    if (json === undefined) value = r.body;
    else if (shape.collection) value = collectionOf(json, protocol, ctx) ?? json;
    else value = withETag(protocol.decodeEntity(json, ctx), r.headers['etag'] ?? null);
  }
  const bodyETag = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)['@odata.etag'] : undefined;
  return { ok: true, ...base, value, etag: r.headers['etag'] ?? (typeof bodyETag === 'string' ? bodyETag : undefined), location, error: undefined };
}
