// The test server's side of multipart $batch: reads a request body into parts, writes the answer.
import { randomUUID } from 'node:crypto';
import { badRequest } from '../errors.js';

/** One request inside a batch. */
export interface PartRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  contentId: string | undefined;
}

/** One response inside a batch answer. */
export interface PartResponse {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  body: string;
  contentId?: string | undefined;
}

/** A top-level item of a batch: a single request or a changeset. */
export type BatchItem = { kind: 'single'; request: PartRequest } | { kind: 'changeset'; requests: PartRequest[] };

/** The `boundary` of a multipart content type. */
export function boundaryParam(type: string): string | undefined {
  const m = /^\s*multipart\/mixed\s*;.*?\bboundary=(?:"([^"]+)"|([^;\s]+))/i.exec(type);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The parts between `--boundary` lines (RFC 2046), each without the CRLF that precedes a delimiter. */
function splitParts(body: string, boundary: string): string[] {
  const open = `--${boundary}`;
  const start = body.startsWith(open) ? 0 : body.indexOf(`\r\n${open}`);
  if (start < 0) throw badRequest(`The batch body does not contain the boundary '${boundary}'`);
  const rest = body.slice(start === 0 ? 0 : start + 2);
  const close = rest.indexOf(`\r\n${open}--`);
  if (close < 0) throw badRequest('The batch body has no closing delimiter');
  return rest.slice(open.length, close).split(`\r\n${open}`).map((p) => p.replace(/^[ \t]*\r\n/, ''));
}

function headerBlock(text: string): { headers: Record<string, string>; rest: string } {
  const end = text.indexOf('\r\n\r\n');
  const head = end < 0 ? text : text.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, rest: end < 0 ? '' : text.slice(end + 4) };
}

function partRequest(part: string): PartRequest {
  const mime = headerBlock(part);
  if (!/^application\/http\b/i.test(mime.headers['content-type'] ?? '')) throw badRequest(`A batch part has content type '${mime.headers['content-type'] ?? ''}', not application/http`);
  const lineEnd = mime.rest.indexOf('\r\n');
  const requestLine = lineEnd < 0 ? mime.rest : mime.rest.slice(0, lineEnd);
  const m = /^([A-Z]+) (\S+) HTTP\/1\.1$/.exec(requestLine);
  if (!m) throw badRequest(`Invalid request line in a batch part: ${JSON.stringify(requestLine.slice(0, 80))}`);
  const inner = lineEnd < 0 ? { headers: {}, rest: '' } : mime.rest.slice(lineEnd + 2).startsWith('\r\n') ? { headers: {}, rest: mime.rest.slice(lineEnd + 4) } : headerBlock(mime.rest.slice(lineEnd + 2));
  return { method: m[1]!, url: m[2]!, headers: inner.headers, body: inner.rest, contentId: mime.headers['content-id'] };
}

/** Reads a multipart/mixed batch request body. */
export function parseMultipartBatch(body: string, boundary: string): BatchItem[] {
  return splitParts(body, boundary).map((part) => {
    const mime = headerBlock(part);
    const nested = boundaryParam(mime.headers['content-type'] ?? '');
    if (nested === undefined) return { kind: 'single', request: partRequest(part) };
    const requests = splitParts(mime.rest, nested).map(partRequest);
    if (requests.some((r) => r.method === 'GET')) throw badRequest('A changeset must not contain GET requests');
    return { kind: 'changeset', requests };
  });
}

function responsePart(r: PartResponse): string {
  let text = `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n${r.contentId === undefined ? '' : `Content-ID: ${r.contentId}\r\n`}\r\n`;
  text += `HTTP/1.1 ${r.status} ${r.statusText}\r\n`;
  for (const [name, value] of Object.entries(r.headers)) text += `${name}: ${value}\r\n`;
  return `${text}\r\n${r.body}`;
}

/** Writes the multipart answer: one part per single request, a nested multipart per applied changeset. */
export function writeMultipartAnswer(answers: ReadonlyArray<PartResponse | PartResponse[]>): { boundary: string; body: string } {
  const boundary = `batchresponse_${randomUUID()}`;
  let body = '';
  for (const answer of answers) {
    body += `--${boundary}\r\n`;
    if (!Array.isArray(answer)) {
      body += `${responsePart(answer)}\r\n`;
      continue;
    }
    const cs = `changesetresponse_${randomUUID()}`;
    body += `Content-Type: multipart/mixed; boundary=${cs}\r\n\r\n`;
    for (const r of answer) body += `--${cs}\r\n${responsePart(r)}\r\n`;
    body += `--${cs}--\r\n`;
  }
  return { boundary, body: `${body}--${boundary}--\r\n` };
}
