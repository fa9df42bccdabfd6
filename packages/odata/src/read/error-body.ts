import { errorResponseInit, HttpError, readErrorBody, type SluiceResponse } from '@sluice/core';
import { ODataError, type ODataErrorDetail } from '../errors.js';
import { childrenNamed, parseXml, type XmlElement } from '../metadata/xml.js';

/** The fields of an OData error body: code, message, and where given the target and details. */
export interface ParsedError { code: string; message: string; target?: string | undefined; details?: ODataErrorDetail[] | undefined }

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** v4 `{"error":{"code","message","target","details"}}`; v2 `{"error":{"code","message":{"lang","value"}}}`. */
function fromJson(body: unknown): ParsedError | undefined {
  const error = (body as { error?: unknown } | null)?.error ?? (body as { 'odata.error'?: unknown } | null)?.['odata.error'];
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as Record<string, unknown>;
  const message = str(e['message']) ?? str((e['message'] as { value?: unknown } | null)?.value) ?? '';
  const details = Array.isArray(e['details'])
    ? e['details'].map((d: Record<string, unknown>) => ({ code: str(d?.['code']) ?? '', message: str(d?.['message']) ?? '', ...(str(d?.['target']) !== undefined ? { target: str(d?.['target']) } : {}) }))
    : [];
  return { code: str(e['code']) ?? '', message, target: str(e['target']), details };
}

/** SAP gateway XML: `<error xmlns="…/dataservices/metadata"><code/><message xml:lang="en"/></error>`. */
function fromXml(text: string): ParsedError | undefined {
  let root: XmlElement;
  try {
    root = parseXml(text);
  } catch {
    return undefined;
  }
  const error = root.children.find((c) => c.name === 'error');
  if (!error) return undefined;
  const child = (name: string): string | undefined => childrenNamed(error, name)[0]?.text.trim();
  const details: ODataErrorDetail[] = [];
  // SAP lists further messages under innererror/errordetails/errordetail.
  const inner = childrenNamed(error, 'innererror')[0];
  const list = inner ? childrenNamed(inner, 'errordetails')[0] : undefined;
  for (const d of list ? childrenNamed(list, 'errordetail') : []) {
    const target = childrenNamed(d, 'target')[0]?.text.trim();
    details.push({ code: childrenNamed(d, 'code')[0]?.text.trim() ?? '', message: childrenNamed(d, 'message')[0]?.text.trim() ?? '', ...(target ? { target } : {}) });
  }
  return { code: child('code') ?? '', message: child('message') ?? '', target: child('target'), details };
}

/** Parses an OData error body in any of the three forms; undefined when it is none of them. */
export function parseErrorBody(text: string): ParsedError | undefined {
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{')) {
    try {
      return fromJson(JSON.parse(trimmed));
    } catch {
      return undefined;
    }
  }
  if (trimmed.startsWith('<')) return fromXml(trimmed);
  return undefined;
}

/** Headers servers put their request id in (SAP, Azure/Dataverse, proxies, CAP). */
const REQUEST_ID_HEADERS = ['x-request-id', 'sap-request-id', 'x-ms-request-id', 'request-id', 'x-correlation-id', 'x-correlationid', 'x-vcap-request-id'];

function requestIdOf(response: SluiceResponse): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const value = response.headers.get(name);
    if (value) return value.slice(0, 200);
  }
  return undefined;
}

/**
 * Reads an error response (status >= 400) into an {@link ODataError}: code, message, target and details
 * from an OData error body, undefined with any other body. Its `cause` is the plain {@link HttpError}.
 */
export async function toODataError(response: SluiceResponse): Promise<ODataError> {
  // Core's reader: at most 64 KiB, redacted, the rest dropped so the connection is released.
  const body = await readErrorBody(response);
  const base = errorResponseInit(response, body);
  const parsed = parseErrorBody(body.text);
  return new ODataError({ ...base, ...parsed, requestId: requestIdOf(response), cause: new HttpError(base) });
}
