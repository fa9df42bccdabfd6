import type { SluiceResponse } from '@sluice/core';
import { ODataFormatError } from '../errors.js';
import type { ODataProtocol } from '../protocol/types.js';
import { entitySetOf, type ODataOperationType, type ODataSpan } from '../telemetry.js';
import { toODataError } from '../read/error-body.js';
import { writeError } from './errors.js';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { WriteHost, WriteOptions, WriteSettings } from './host.js';
import { guardParser, type BodyParser } from '../read/json-answer.js';
import { exchangeWrite } from './redirect.js';

/** What one modifying request carries besides its options. @internal */
export interface WriteRequest {
  /** `PATCH` means a partial update (v2 MERGE). */
  method: 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'GET';
  url: string;
  body?: unknown;
  headers?: Record<string, string>;
  options: WriteOptions;
  /** What the request is for its span; default: the write its method names, on the entity set its URL names. */
  span?: ODataSpan;
}

const WRITE_TYPES: Record<WriteRequest['method'], ODataOperationType> = { POST: 'create', PATCH: 'update', PUT: 'replace', DELETE: 'delete', GET: 'read' };

/**
 * Sends a write: the version's method (MERGE, tunnelling), content type and version headers, the body as
 * JSON. A `307`/`308` to the same origin is followed with method and body; any other redirect is a
 * WriteRedirectError (LogonRedirectError to a logon page). An error status becomes an ODataError (412
 * PreconditionFailedError, 428 PreconditionRequiredError); a success answered with an HTML page (an SAP logon page after the session
 * ended) is an ODataFormatError. @internal
 */
export async function sendWrite(host: WriteHost, protocol: ODataProtocol, req: WriteRequest): Promise<SluiceResponse> {
  const settings = host.writeSettings();
  const tunnel = req.options.tunnel ?? settings.tunnel;
  const m = req.method === 'POST' || req.method === 'GET' ? { method: req.method, headers: {} } : protocol.write.method(req.method, tunnel);
  const base = protocol.write.writeHeaders(settings.largeNumbers);
  if (req.body === undefined) delete base['content-type'];
  const response = await exchangeWrite(host, {
    method: m.method,
    url: req.url,
    headers: { ...req.options.headers, ...base, ...m.headers, ...req.headers },
    ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
    signal: req.options.signal,
    timeout: req.options.timeout,
    deadline: req.options.deadline,
    span: req.span ?? { type: WRITE_TYPES[req.method], entitySet: entitySetOf(host.serviceURL, req.url) },
  });
  if (response.status >= 400) throw writeError(await toODataError(response));
  const type = response.headers.get('content-type');
  if (response.status !== 204 && type !== null && /text\/html/i.test(type)) {
    await response.cancel();
    throw new ODataFormatError(
      `${m.method} answered ${response.status} with an HTML page instead of OData: most likely a logon page because the session ended (sign in again, or check the credentials)`,
      response.status,
    );
  }
  return response;
}

/**
 * How an answer holding an entity (`shape: 'entity'`) or a collection of them is parsed: through the
 * client's precision guard, as reads are, so that Int64/Decimal stay exact on v4 services that ignore
 * IEEE754Compatible; `names` overrides the declared large properties of `type` (an operation's Int64
 * `value`). @internal
 */
export function bodyParser(settings: WriteSettings, protocol: ODataProtocol, type: EntityTypeInfo | undefined, shape: 'entity' | 'collection' = 'entity', names?: ReadonlySet<string>): BodyParser | undefined {
  return guardParser(settings.precision, protocol.version, type, shape, names);
}
