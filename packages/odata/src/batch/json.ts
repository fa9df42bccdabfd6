// The OData 4.01 JSON batch format (JSON Format 4.01 section 19): a `requests` array whose changesets
// share an `atomicityGroup`, with `dependsOn` for requests that refer to another one as `$<id>`.
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
export function encodeJsonBatch(groups: readonly BatchGroup[]): { requests: JsonBatchRequest[] } {
  const ids = idsOf(groups);
  const requests: JsonBatchRequest[] = [];
  let changesets = 0;
  groups.forEach((group, gi) => {
    const list: readonly BatchPartRequest[] = group.kind === 'single' ? [group.request] : group.requests;
    const atomicityGroup = group.kind === 'changeset' ? `g${++changesets}` : undefined;
    list.forEach((req, ri) => {
      const id = ids[gi]![ri]!;
      const entry: JsonBatchRequest = { id, method: req.method.toLowerCase(), url: req.url };
      if (atomicityGroup !== undefined) entry.atomicityGroup = atomicityGroup;
      // A reference `$1` needs the referenced request to run first (section 19.1.3).
      const ref = /^\$([^/?]+)/.exec(req.url)?.[1];
      if (ref !== undefined) entry.dependsOn = [ref];
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

/**
 * Matches a JSON batch answer (`responses`, in any order, by `id`) to the groups sent. A response for an
 * unknown id or a missing one is a BatchFormatError; an atomicity group with any failed response fails as
 * a whole, with its first failure, as a multipart changeset answered by one error does. @internal
 */
export function readJsonBatch(text: string, groups: readonly BatchGroup[], status: number): GroupResponse[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    throw new BatchFormatError(`The JSON batch response is not valid JSON: ${(cause as Error).message}`, status);
  }
  const list = isRecord(doc) ? doc['responses'] : undefined;
  if (!Array.isArray(list)) throw new BatchFormatError('The JSON batch response has no responses array', status);
  const byId = new Map<string, BatchPartResponse>();
  for (const item of list) {
    if (!isRecord(item) || typeof item['id'] !== 'string' || typeof item['status'] !== 'number') {
      throw new BatchFormatError('A JSON batch response entry lacks its id or status', status);
    }
    const headers: Record<string, string> = {};
    if (isRecord(item['headers'])) for (const [k, v] of Object.entries(item['headers'])) headers[k.toLowerCase()] = String(v);
    const body = item['body'] === undefined ? '' : typeof item['body'] === 'string' && !/json/i.test(headers['content-type'] ?? 'json') ? item['body'] : JSON.stringify(item['body']);
    if (byId.has(item['id'])) throw new BatchFormatError(`The JSON batch response answers request ${item['id']} twice`, status);
    byId.set(item['id'], { status: item['status'], headers, body, contentId: item['id'] });
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
