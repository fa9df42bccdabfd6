// The OData 4.01 JSON batch format (JSON Format 4.01 section 19): a `requests` array whose changesets
// share an `atomicityGroup`, with `dependsOn` for requests that refer to another one as `$<id>`; the
// answer's `responses` array is read element by element as it arrives.
import { ResponseSizeError } from '../errors.js';
import type { ReadLimits } from '../read/context.js';
import { ItemScanner, type ScanBatch } from '../read/scanner.js';
import { BatchFormatError } from './errors.js';
import { checkHeader, type BatchGroup, type BatchPartRequest, type BatchPartResponse, type GroupResponse } from './types.js';

/** One request object of a JSON batch. @internal */
export interface JsonBatchRequest {
  id: string;
  method: string;
  url: string;
  atomicityGroup?: string;
  dependsOn?: string[];
  headers?: Record<string, string>;
  body?: unknown;
}

/** The ids of a JSON batch: the request's Content-ID, else its position (`r<n>`). */
function idsOf(groups: readonly BatchGroup[]): string[][] {
  let n = 0;
  return groups.map((g) => (g.kind === 'single' ? [g.request] : g.requests).map((r) => r.contentId ?? `r${++n}`));
}

/** The JSON batch request body for `groups` (changeset n is atomicity group `g<n+1>`). @internal */
export function encodeJsonBatch(groups: readonly BatchGroup[], options: { dependsOnGroups?: boolean } = {}): { requests: JsonBatchRequest[] } {
  const ids = idsOf(groups);
  const requests: JsonBatchRequest[] = [];
  /** The atomicity group of each id sent so far. */
  const groupOf = new Map<string, string | undefined>();
  let changesets = 0;
  groups.forEach((group, gi) => {
    const list: readonly BatchPartRequest[] = group.kind === 'single' ? [group.request] : group.requests;
    const atomicityGroup = group.kind === 'changeset' ? `g${++changesets}` : undefined;
    list.forEach((req, ri) => {
      const id = ids[gi]![ri]!;
      const entry: JsonBatchRequest = { id, method: req.method.toLowerCase(), url: req.url };
      if (atomicityGroup !== undefined) entry.atomicityGroup = atomicityGroup;
      // JSON Format 4.01 section 19.1: a reference `$1` names request 1 in dependsOn, and its atomicity
      // group too when that is another one (references may cross groups, only backwards).
      const ref = /^\$([^/?]+)/.exec(req.url)?.[1];
      if (ref !== undefined) {
        if (!groupOf.has(ref)) throw new TypeError(`Batch request ${id} refers to $${ref}, which is no earlier request of the batch`);
        const refGroup = groupOf.get(ref);
        entry.dependsOn = refGroup !== undefined && refGroup !== atomicityGroup && options.dependsOnGroups !== false ? [refGroup, ref] : [ref];
      }
      groupOf.set(id, atomicityGroup);
      const headers = Object.entries(req.headers);
      if (headers.length > 0) {
        for (const [name, value] of headers) checkHeader(name, value);
        entry.headers = Object.fromEntries(headers);
      }
      if (req.body !== undefined) entry.body = req.body;
      requests.push(entry);
    });
  });
  return { requests };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Where the JSON value that starts at `start` of `text` ends (exclusive). */
function valueEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 0) return i + 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return i; // the end of the enclosing object: a bare value ends here
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === ',' || c === ' ' || c === '\n' || c === '\r' || c === '\t')) return i;
  }
  return text.length;
}

/**
 * The text of the value of the top-level member `name` of the JSON object `text`, as the service wrote it
 * (so that a body's numbers can be read exactly), or undefined when it has none.
 */
export function memberText(text: string, name: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth !== 1) continue;
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] !== ':') continue;
      if (JSON.parse(text.slice(start, i + 1)) !== name) continue;
      for (j++; j < text.length && /\s/.test(text[j]!); j++);
      return text.slice(j, valueEnd(text, j));
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return undefined;
}

/** One response object of the answer, checked; `text` is its JSON text, whose body is kept as written. */
function responseOf(item: unknown, status: number, text: string): BatchPartResponse {
  if (!isRecord(item) || typeof item['id'] !== 'string' || typeof item['status'] !== 'number') {
    throw new BatchFormatError('A JSON batch response entry lacks its id or status', status);
  }
  const headers: Record<string, string> = {};
  if (isRecord(item['headers'])) for (const [k, v] of Object.entries(item['headers'])) headers[k.toLowerCase()] = String(v);
  const raw = item['body'];
  const body = raw === undefined || raw === null ? '' : typeof raw === 'string' && !/json/i.test(headers['content-type'] ?? 'json') ? raw
    : (typeof raw === 'object' ? memberText(text, 'body') : undefined) ?? JSON.stringify(raw);
  return { status: item['status'], headers, body, contentId: item['id'] };
}

/** The response objects completed by one scanned chunk, in order, with their text (the scanner does not speculate). */
function* scanned(batch: ScanBatch): Generator<{ item: unknown; text: string }> {
  const { buf, starts, ends } = batch;
  for (let i = 0; i < starts.length; i++) {
    const text = buf.toString('utf8', starts[i]!, ends[i]!);
    yield { item: JSON.parse(text), text };
  }
}

/**
 * Reads a JSON batch answer as it arrives: each element of `responses` is parsed on its own once its last
 * byte is in (never the whole document at once), an element larger than `maxRecordBytes` or an answer
 * larger than `maxPageBytes` is a ResponseSizeError, and the responses are matched to `groups` as
 * {@link matchJsonResponses} does. Anything that is not such an answer is a BatchFormatError. @internal
 */
export async function readJsonBatch(body: AsyncIterable<Uint8Array>, groups: readonly BatchGroup[], status: number, limits: Partial<ReadLimits> = {}): Promise<GroupResponse[]> {
  // Every response as text (no speculative runs): its body is kept as written, for exact numbers.
  const scanner = new ItemScanner([['responses']], limits.maxRecordBytes, false);
  const list: BatchPartResponse[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (limits.maxPageBytes !== undefined && size > limits.maxPageBytes) throw new ResponseSizeError('maxPageBytes', limits.maxPageBytes);
      for (const { item, text } of scanned(scanner.push(chunk))) list.push(responseOf(item, status, text));
      if (scanner.failure !== undefined) throw scanner.failure;
    }
    scanner.end();
  } catch (cause) {
    if (!(cause instanceof SyntaxError)) throw cause;
    throw new BatchFormatError(`The JSON batch response is not valid JSON: ${cause.message}`, status);
  }
  if (!scanner.foundArray) throw new BatchFormatError('The JSON batch response has no responses array', status);
  return matchJsonResponses(list, groups, status);
}

/**
 * Matches the responses of a JSON batch answer (in any order, by `id`) to the groups sent. A response for
 * an unknown id or a missing one is a BatchFormatError; an atomicity group with any failed response fails
 * as a whole, with its first failure, as a multipart changeset answered by one error does. @internal
 */
export function matchJsonResponses(list: readonly BatchPartResponse[], groups: readonly BatchGroup[], status: number): GroupResponse[] {
  const byId = new Map<string, BatchPartResponse>();
  for (const response of list) {
    const id = response.contentId!;
    if (byId.has(id)) throw new BatchFormatError(`The JSON batch response answers request ${id} twice`, status);
    byId.set(id, response);
  }
  const ids = idsOf(groups);
  const out: GroupResponse[] = [];
  let used = 0;
  groups.forEach((group, gi) => {
    const responses = ids[gi]!.map((id) => byId.get(id));
    const present = responses.filter((r): r is BatchPartResponse => r !== undefined);
    used += present.length;
    // A failed atomicity group was rolled back as a whole, whether it is answered for its first failing
    // request only or request by request (CAP reports a rolled back create as 201): every operation of
    // it fails with the first failure.
    const failed = present.find((r) => r.status >= 400);
    if (group.kind === 'changeset' && failed !== undefined) {
      out.push([failed]);
      return;
    }
    if (present.length === responses.length) {
      out.push(present);
      return;
    }
    const missing = ids[gi]![responses.indexOf(undefined)]!;
    throw new BatchFormatError(`The JSON batch response has no response for request ${missing}`, status);
  });
  if (used !== byId.size) throw new BatchFormatError(`The JSON batch response has ${byId.size} responses for ${used} requests it could be matched to`, status);
  return out;
}
