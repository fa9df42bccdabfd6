// The multipart/mixed batch request body (OData 4.01 Part 1 section 11.7.7; OData v2 batch processing):
// CRLF line ends, one application/http part per single request, a nested multipart per changeset.
import { randomUUID } from 'node:crypto';
import { checkHeader, headerName, type BatchGroup, type BatchPartRequest } from './types.js';

const CRLF = '\r\n';

/** Boundaries for one batch body; given in tests, random otherwise. @internal */
export interface Boundaries {
  readonly batch: string;
  /** The boundary of the n-th changeset (0-based). */
  changeset(n: number): string;
}

/** Random boundaries (`batch_<uuid>`, `changeset_<uuid>`), which no JSON body can contain by chance. @internal */
export function randomBoundaries(): Boundaries {
  const batch = `batch_${randomUUID()}`;
  return { batch, changeset: () => `changeset_${randomUUID()}` };
}

function checkBoundary(boundary: string): void {
  // RFC 2046 section 5.1.1: 1 to 70 characters of a restricted set, not ending in a space.
  if (!/^[0-9A-Za-z'()+_,\-./:=?]{1,70}$/.test(boundary)) throw new TypeError(`Invalid multipart boundary ${JSON.stringify(boundary)}`);
}

/** The application/http part of one request: part headers, blank line, request line, headers, blank line, body. */
function httpPart(req: BatchPartRequest): string {
  let head = `Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}`;
  if (req.contentId !== undefined) {
    checkHeader('Content-ID', req.contentId);
    head += `Content-ID: ${req.contentId}${CRLF}`;
  }
  if (/[\s]/.test(req.url) || !/^[A-Z]+$/.test(req.method)) throw new TypeError(`Invalid batch request line: ${req.method} ${req.url}`);
  let inner = `${req.method} ${req.url} HTTP/1.1${CRLF}`;
  for (const [name, value] of Object.entries(req.headers)) {
    checkHeader(name, value);
    inner += `${headerName(name)}: ${value}${CRLF}`;
  }
  const body = req.body === undefined ? '' : JSON.stringify(req.body);
  return `${head}${CRLF}${inner}${CRLF}${body}`;
}

/**
 * The body of a multipart/mixed batch request. Every delimiter is preceded by CRLF (RFC 2046: the CRLF
 * belongs to the delimiter), so a part's body ends exactly where the next delimiter starts. @internal
 */
export function encodeMultipart(groups: readonly BatchGroup[], boundaries: Boundaries): string {
  checkBoundary(boundaries.batch);
  let out = '';
  let n = 0;
  for (const group of groups) {
    out += `--${boundaries.batch}${CRLF}`;
    if (group.kind === 'single') {
      out += `${httpPart(group.request)}${CRLF}`;
      continue;
    }
    const cs = boundaries.changeset(n++);
    checkBoundary(cs);
    out += `Content-Type: multipart/mixed;boundary=${cs}${CRLF}${CRLF}`;
    for (const req of group.requests) out += `--${cs}${CRLF}${httpPart(req)}${CRLF}`;
    out += `--${cs}--${CRLF}`;
  }
  return `${out}--${boundaries.batch}--${CRLF}`;
}

/** The Content-Type of a multipart batch request with this boundary. @internal */
export function multipartType(boundary: string): string {
  return `multipart/mixed;boundary=${boundary}`;
}
