// Runs the requests of a $batch (multipart or JSON) against the server itself, over loopback HTTP with
// the batch's credentials (Authorization, cookies, CSRF token). A changeset that fails is rolled back.
import { request as httpRequest, STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { badRequest } from '../errors.js';
import { send } from '../respond.js';
import type { WriteService } from '../write/write-service.js';
import { boundaryParam, parseMultipartBatch, writeMultipartAnswer, type BatchItem, type PartRequest, type PartResponse } from './multipart.js';

/** Header that marks the loopback requests of a batch (the server does not record them). */
export const BATCH_PART_HEADER = 'x-testkit-batch-part';
const FORWARDED = ['authorization', 'cookie', 'x-csrf-token', 'odata-version', 'odata-maxversion', 'dataserviceversion', 'maxdataserviceversion'];

interface BatchContext {
  readonly origin: string;
  readonly rootPath: string;
  readonly outer: IncomingMessage;
  readonly writes: WriteService | undefined;
}

function loopback(b: BatchContext, r: PartRequest, refs: ReadonlyMap<string, string>): Promise<PartResponse> {
  let url = r.url;
  const ref = /^\$([^/?]+)(.*)$/.exec(url);
  if (ref) {
    const target = refs.get(ref[1]!);
    if (target === undefined) throw badRequest(`The Content-ID reference $${ref[1]!} names no earlier request ${refs.size > 0 && !refs.has(ref[1]!) ? 'that created an entity' : 'of the changeset'}`);
    url = target + ref[2]!;
  }
  const path = /^https?:\/\//i.test(url) ? new URL(url).pathname + new URL(url).search : url.startsWith('/') ? url : b.rootPath + url;
  const headers: Record<string, string> = { ...r.headers, [BATCH_PART_HEADER]: '1' };
  for (const name of FORWARDED) {
    const value = b.outer.headers[name];
    if (typeof value === 'string' && headers[name] === undefined) headers[name] = value;
  }
  if (r.body !== '') headers['content-length'] = String(Buffer.byteLength(r.body));
  return new Promise((resolve, reject) => {
    const req = httpRequest(b.origin + path, { method: r.method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string' && k !== 'content-length' && k !== 'connection' && k !== 'keep-alive' && k !== 'date' && k !== 'transfer-encoding') h[k] = v;
        const status = res.statusCode ?? 500;
        resolve({ status, statusText: STATUS_CODES[status] ?? 'Unknown', headers: h, body: Buffer.concat(chunks).toString('utf8'), contentId: r.contentId });
      });
    });
    req.on('error', reject);
    req.end(r.body === '' ? undefined : r.body);
  });
}

/**
 * Runs one item; a changeset's failure restores the store and answers the failing response alone.
 * `refs` (Content-ID to created entity path) is the changeset's own unless a JSON batch shares one.
 */
async function run(b: BatchContext, item: BatchItem, shared?: Map<string, string>): Promise<PartResponse | PartResponse[]> {
  if (item.kind === 'single') {
    const response = await loopback(b, item.request, shared ?? new Map());
    remember(shared, item.request, response);
    return response;
  }
  const restore = b.writes?.store.snapshot();
  const refs = shared ?? new Map<string, string>();
  const out: PartResponse[] = [];
  for (const r of item.requests) {
    const response = await loopback(b, r, refs);
    if (response.status >= 400) {
      restore?.();
      return response;
    }
    remember(refs, r, response);
    out.push(response);
  }
  return out;
}

/** Keeps where the entity a request created (or returned with a Location) is, under its Content-ID. */
function remember(refs: Map<string, string> | undefined, r: PartRequest, response: PartResponse): void {
  const location = response.headers['location'];
  if (refs !== undefined && r.contentId !== undefined && location !== undefined && response.status < 400) refs.set(r.contentId, new URL(location).pathname);
}

/** Answers `POST $batch` in the format it was sent in. */
export async function handleBatch(req: IncomingMessage, res: ServerResponse, b: Omit<BatchContext, 'outer'>, body: string): Promise<void> {
  if (req.method !== 'POST') throw badRequest('$batch takes POST');
  const ctx = { ...b, outer: req };
  const type = String(req.headers['content-type'] ?? '');
  const versions: Record<string, string> = b.rootPath.includes('/v4/') ? { 'odata-version': '4.0' } : { dataserviceversion: '2.0' };
  if (/^application\/json\b/i.test(type)) return jsonBatch(res, ctx, body);
  const boundary = boundaryParam(type);
  if (boundary === undefined) throw badRequest(`$batch needs multipart/mixed with a boundary or application/json, got '${type}'`);
  const items = parseMultipartBatch(body, boundary);
  const answers: Array<PartResponse | PartResponse[]> = [];
  for (const item of items) answers.push(await run(ctx, item));
  const answer = writeMultipartAnswer(answers);
  await send(res, 200, { ...versions, 'content-type': `multipart/mixed; boundary=${answer.boundary}` }, answer.body);
}

interface JsonRequest { id: string; method: string; url: string; atomicityGroup?: string; dependsOn?: string[]; headers?: Record<string, string>; body?: unknown }

/**
 * JSON Format 4.01 section 19.1 `dependsOn`: only earlier ids or atomicity groups; a `$<id>` reference
 * must be listed, and its atomicity group too when that is another one. A broken rule fails the batch (400).
 */
function checkDependsOn(r: JsonRequest, earlier: ReadonlyMap<string, string | undefined>, groups: ReadonlySet<string>): void {
  const deps = r.dependsOn ?? [];
  if (!Array.isArray(deps)) throw badRequest(`dependsOn of request ${r.id} must be an array`);
  for (const d of deps) if (!earlier.has(d) && !groups.has(d)) throw badRequest(`dependsOn of request ${r.id} names ${d}, which is no earlier request or atomicity group`);
  const ref = /^\$([^/?]+)/.exec(String(r.url))?.[1];
  if (ref === undefined) return;
  if (!deps.includes(ref)) throw badRequest(`Request ${r.id} refers to $${ref} without listing it in dependsOn`);
  const group = earlier.get(ref);
  if (group !== undefined && group !== r.atomicityGroup && !deps.includes(group)) throw badRequest(`Request ${r.id} refers to $${ref} of atomicity group ${group} without listing the group in dependsOn`);
}

/** The 424 answer of a request not run because one it depends on failed. */
function failedDependency(part: PartRequest): PartResponse {
  const body = JSON.stringify({ error: { code: 'FailedDependency', message: `Request ${part.contentId ?? ''} was not run: a request it depends on failed` } });
  return { status: 424, statusText: STATUS_CODES[424] ?? 'Failed Dependency', headers: { 'content-type': 'application/json' }, body, contentId: part.contentId };
}

/** OData JSON Format 4.01 section 19: requests in order, atomicity groups as changesets, references across them. */
async function jsonBatch(res: ServerResponse, b: BatchContext, body: string): Promise<void> {
  let doc: { requests?: JsonRequest[] };
  try {
    doc = JSON.parse(body) as { requests?: JsonRequest[] };
  } catch {
    throw badRequest('The JSON batch is not valid JSON');
  }
  if (!Array.isArray(doc.requests)) throw badRequest('The JSON batch has no requests array');
  const items: BatchItem[] = [];
  const deps = new Map<BatchItem, string[]>();
  const earlier = new Map<string, string | undefined>();
  const groups = new Set<string>();
  for (const r of doc.requests) {
    checkDependsOn(r, earlier, groups);
    earlier.set(String(r.id), r.atomicityGroup);
    const part: PartRequest = {
      method: String(r.method).toUpperCase(), url: String(r.url), contentId: String(r.id),
      headers: Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
      body: r.body === undefined ? '' : JSON.stringify(r.body),
    };
    if (r.body !== undefined) part.headers['content-type'] ??= 'application/json';
    const last = items[items.length - 1];
    const group = r.atomicityGroup;
    if (group !== undefined && last?.kind === 'changeset' && (last as BatchItem & { group?: string }).group === group) last.requests.push(part);
    else items.push(group === undefined ? { kind: 'single', request: part } : Object.assign({ kind: 'changeset' as const, requests: [part] }, { group }));
    if (group !== undefined) groups.add(group);
    const item = items[items.length - 1]!;
    deps.set(item, [...(deps.get(item) ?? []), ...(r.dependsOn ?? [])]);
  }
  const responses: Array<Record<string, unknown>> = [];
  const refs = new Map<string, string>();
  const failed = new Set<string>();
  for (const item of items) {
    const parts = item.kind === 'single' ? [item.request] : item.requests;
    const blocked = (deps.get(item) ?? []).some((d) => failed.has(d));
    const answer = blocked ? parts.map(failedDependency) : await run(b, item, refs);
    const list = Array.isArray(answer) ? answer : [answer];
    const group = (item as BatchItem & { group?: string }).group;
    for (const r of list) if (r.status >= 400) for (const name of [r.contentId, group]) if (name !== undefined) failed.add(name);
    // A failed group fails every request of it, also those it did not answer.
    if (group !== undefined && failed.has(group)) for (const p of parts) if (p.contentId !== undefined) failed.add(p.contentId);
    for (const r of list) {
      const entry: Record<string, unknown> = { id: r.contentId, status: r.status, headers: r.headers };
      if (group !== undefined) entry['atomicityGroup'] = group;
      if (r.body !== '') entry['body'] = /json/i.test(r.headers['content-type'] ?? '') ? JSON.parse(r.body) : r.body;
      responses.push(entry);
    }
  }
  await send(res, 200, { 'odata-version': '4.01', 'content-type': 'application/json' }, JSON.stringify({ responses }));
}
