// Reads a multipart/mixed batch answer as its bytes arrive: parts are cut out at each delimiter and the
// bytes before them dropped, so a large answer is not held twice. Every irregularity is a BatchFormatError.
import { BatchFormatError } from './errors.js';
import type { BatchGroup, BatchPartResponse, GroupResponse } from './types.js';

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/** The `boundary` parameter of a multipart content type, or undefined. @internal */
export function boundaryOf(contentType: string | null): string | undefined {
  if (contentType === null || !/^\s*multipart\/mixed\b/i.test(contentType)) return undefined;
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** Splits a multipart body into its parts' bytes, incrementally (RFC 2046 section 5.1.1). @internal */
export class MultipartReader {
  private buf: Buffer = Buffer.alloc(0);
  private readonly delimiter: Buffer;
  private partStart = -1;
  private searchFrom = 0;
  private closed = false;
  private count = 0;

  constructor(private readonly boundary: string, private readonly status: number, private readonly what = 'batch response') {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Adds bytes; returns the parts they completed. */
  push(chunk: Uint8Array): Buffer[] {
    if (this.closed) return [];
    this.buf = this.buf.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buf, chunk]);
    const parts: Buffer[] = [];
    for (;;) {
      let at = -1;
      if (this.partStart < 0 && this.searchFrom === 0) {
        // The first delimiter may open the body without the CRLF before it.
        const lead = this.delimiter.subarray(2);
        if (this.buf.length < lead.length && lead.subarray(0, this.buf.length).equals(this.buf)) break;
        if (this.buf.subarray(0, lead.length).equals(lead)) at = -2;
      }
      if (at === -1) at = this.buf.indexOf(this.delimiter, this.searchFrom);
      if (at === -1) {
        this.searchFrom = Math.max(0, this.partStart, this.buf.length - this.delimiter.length);
        if (this.partStart < 0 && this.buf.length > 64 * 1024) {
          throw new BatchFormatError(`The ${this.what} does not contain its boundary '${this.boundary}' (wrong boundary?)`, this.status);
        }
        break;
      }
      const after = at + this.delimiter.length;
      const rest = this.after(after);
      if (rest === 'wait') {
        this.searchFrom = Math.max(0, at);
        break;
      }
      if (rest === 'no') {
        this.searchFrom = Math.max(1, at + 1);
        continue;
      }
      if (this.partStart >= 0) {
        parts.push(Buffer.from(this.buf.subarray(this.partStart, Math.max(at, this.partStart))));
        this.count++;
      }
      if (rest.close) {
        this.closed = true;
        this.buf = Buffer.alloc(0);
        break;
      }
      this.buf = this.buf.subarray(rest.next);
      this.partStart = 0;
      this.searchFrom = 0;
    }
    return parts;
  }

  /** After the stream ended: throws when the closing delimiter never came. */
  end(): void {
    if (this.closed) return;
    if (this.partStart < 0) throw new BatchFormatError(`The ${this.what} does not contain its boundary '${this.boundary}' (wrong boundary?)`, this.status);
    throw new BatchFormatError(`The ${this.what} was truncated: part ${this.count + 1} has no closing boundary '--${this.boundary}--'`, this.status);
  }

  /** What follows a delimiter: `--` closes, optional padding + CRLF opens a part, else it was no delimiter. */
  private after(i: number): 'wait' | 'no' | { close: boolean; next: number } {
    if (this.buf.length < i + 2) return 'wait';
    if (this.buf[i] === 0x2d && this.buf[i + 1] === 0x2d) return { close: true, next: i + 2 };
    let j = i;
    while (j < this.buf.length && (this.buf[j] === 0x20 || this.buf[j] === 0x09)) j++;
    if (this.buf.length < j + 2) return 'wait';
    return this.buf[j] === 0x0d && this.buf[j + 1] === 0x0a ? { close: false, next: j + 2 } : 'no';
  }
}

/** A part's MIME headers (lower-case names) and its content. @internal */
export function splitPart(part: Buffer): { headers: Record<string, string>; content: Buffer } {
  if (part.subarray(0, 2).equals(CRLF)) return { headers: {}, content: part.subarray(2) };
  const end = part.indexOf(HEAD_END);
  const headText = (end < 0 ? part : part.subarray(0, end)).toString('latin1');
  return { headers: parseHeaderLines(headText.split('\r\n')), content: end < 0 ? Buffer.alloc(0) : part.subarray(end + 4) };
}

function parseHeaderLines(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

/** The HTTP response an application/http part carries. @internal */
export function parseHttpResponse(part: Buffer, status: number, contentId?: string): BatchPartResponse {
  const end = part.indexOf(HEAD_END);
  const head = (end < 0 ? part : part.subarray(0, end)).toString('latin1').split('\r\n');
  const m = /^HTTP\/\d(?:\.\d)?\s+(\d{3})\b/.exec(head[0] ?? '');
  if (!m) throw new BatchFormatError(`A batch part is not an HTTP response: it starts with ${JSON.stringify((head[0] ?? '').slice(0, 40))}`, status);
  const body = end < 0 ? '' : part.subarray(end + 4).toString('utf8');
  return { status: Number(m[1]), headers: parseHeaderLines(head.slice(1)), body, contentId };
}

/** The responses of one top-level part, checked against the group it answers. */
function groupResponse(part: Buffer, group: BatchGroup, index: number, status: number): GroupResponse {
  const { headers, content } = splitPart(part);
  const type = headers['content-type'] ?? '';
  const nested = boundaryOf(type);
  if (nested === undefined) {
    if (!/^\s*application\/http\b/i.test(type)) throw new BatchFormatError(`Part ${index + 1} of the batch response has content type '${type}', not application/http or multipart/mixed`, status);
    const response = parseHttpResponse(content, status, headers['content-id']);
    // OData: a changeset that failed is answered by one response for all its requests.
    if (group.kind === 'changeset' && group.requests.length > 1 && response.status < 400) {
      throw new BatchFormatError(`Part ${index + 1} answers a changeset of ${group.requests.length} requests with a single ${response.status} response`, status);
    }
    return [response];
  }
  if (group.kind !== 'changeset') throw new BatchFormatError(`Part ${index + 1} of the batch response is a changeset, but request ${index + 1} was a single request`, status);
  const reader = new MultipartReader(nested, status, `changeset response (part ${index + 1})`);
  const parts = reader.push(content);
  reader.end();
  if (parts.length !== group.requests.length) {
    throw new BatchFormatError(`Changeset ${index + 1} of the batch response has ${parts.length} parts for ${group.requests.length} requests`, status);
  }
  return parts.map((p) => {
    const inner = splitPart(p);
    return parseHttpResponse(inner.content, status, inner.headers['content-id']);
  });
}

/**
 * Reads a multipart batch answer into one response list per group, in order. A different number of
 * parts than groups, a wrong boundary or a truncated body is a BatchFormatError. @internal
 */
export async function readMultipart(body: AsyncIterable<Uint8Array>, contentType: string | null, groups: readonly BatchGroup[], status: number): Promise<GroupResponse[]> {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) throw new BatchFormatError(`The batch response is not multipart/mixed with a boundary (content-type ${contentType ?? 'missing'})`, status);
  const reader = new MultipartReader(boundary, status);
  const out: GroupResponse[] = [];
  const take = (parts: Buffer[]): void => {
    for (const part of parts) {
      const group = groups[out.length];
      if (group === undefined) throw new BatchFormatError(`The batch response has more parts than the ${groups.length} requests sent`, status);
      out.push(groupResponse(part, group, out.length, status));
    }
  };
  for await (const chunk of body) take(reader.push(chunk));
  reader.end();
  if (out.length !== groups.length) throw new BatchFormatError(`The batch response has ${out.length} parts for ${groups.length} requests sent`, status);
  return out;
}
