// Routes a request on the v4 or v2 service root to $metadata, the service document, a collection,
// an entity, a navigation target, a property, or $count, and answers OData errors for the rest.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { evaluate, type ResultCache } from './collection.js';
import { errorBody } from './error-body.js';
import { ODataServerError, badRequest } from './errors.js';
import type { PageCache } from './page-cache.js';
import type { FaultState } from './faults.js';
import { compileFilter, compileOrderBy, parseLiteral } from './filter-parser.js';
import { metadataV2Xml, metadataV4Json, metadataV4Xml } from './metadata.js';
import { ENTITY_SETS, type EntitySetDef, type IndexRange, type ODataVersion, type SetSizes, type Value } from './model.js';
import { productJsonV2, productJsonV4 } from './products-fast.js';
import { compileProjection } from './projection.js';
import { decodeComponent, parseQuery, type QueryOptions } from './query-options.js';
import { send, type SendPlan } from './respond.js';
import { collectionV2, entityV2, rowWriterV2 } from './serialize-v2.js';
import { collectionV4, contextFragment, entityV4, rowWriterV4 } from './serialize-v4.js';
import { exchange } from './write/exchange.js';
import { handleBatch } from './batch/execute.js';
import type { WriteService } from './write/write-service.js';

/** Path of the v4 service root on the server. */
export const V4_ROOT_PATH = '/odata/v4/demo/';
/** Path of the v2 (SAP gateway style) service root on the server. */
export const V2_ROOT_PATH = '/sap/opu/odata/sap/DEMO_SRV/';

/** OData error codes for the statuses a failPage fault commonly uses. */
const STATUS_CODES: Record<number, string> = {
  429: 'TooManyRequests', 500: 'InternalServerError', 502: 'BadGateway', 503: 'ServiceUnavailable', 504: 'GatewayTimeout',
};

/** Server-wide state the router reads. */
export interface RouterContext {
  readonly origin: string;
  readonly sizes: SetSizes;
  readonly pageSize: number;
  readonly faults: FaultState;
  readonly cache: ResultCache;
  /** Serialized pages by request, when the server was started with `cacheBytes`. */
  readonly pages?: PageCache;
  /** The writable part (Orders, operations, CSRF), when the server runs with `writes`. */
  readonly writes?: WriteService;
}

interface Request {
  readonly version: ODataVersion;
  readonly root: string;
  readonly path: string;
  readonly search: string;
  readonly head: boolean;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly ctx: RouterContext;
}

/** Handles one request; every failure becomes an OData error response in the client's version. */
export async function route(req: IncomingMessage, res: ServerResponse, ctx: RouterContext, requestBody = ''): Promise<void> {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const search = q < 0 ? '' : url.slice(q + 1);
  const version: ODataVersion = path.startsWith(V2_ROOT_PATH.slice(0, -1)) ? 2 : 4;
  // SAP answers errors as XML when the request asks for XML
  const xml = /(?:^|&)\$format=(?:xml|atom|application\/xml|application\/atom%2Bxml)(?:&|$)/i.test(search);
  try {
    const rootPath = version === 2 ? V2_ROOT_PATH : V4_ROOT_PATH;
    if (path !== rootPath.slice(0, -1) && !path.startsWith(rootPath)) {
      throw new ODataServerError(404, 'NotFound', `No OData service at ${path}`);
    }
    if (ctx.writes?.intercept(req, res)) return;
    if (path === `${rootPath}$batch`) return await handleBatch(req, res, { origin: ctx.origin, rootPath, writes: ctx.writes }, requestBody);
    if (ctx.writes) {
      const rest = decodeComponent(path.slice(Math.min(path.length, rootPath.length)), 'resource path');
      if (await ctx.writes.route(exchange(req, res, version, `${ctx.origin}${rootPath}`, rest, search, requestBody))) return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      throw new ODataServerError(405, 'MethodNotAllowed', `Method ${req.method ?? ''} is not supported by this read-only service`);
    }
    const r: Request = {
      version, root: `${ctx.origin}${rootPath}`, path, search, head: req.method === 'HEAD', req, res, ctx,
    };
    await dispatch(r, path.slice(rootPath.length));
  } catch (error) {
    const err = error instanceof ODataServerError
      ? error
      : new ODataServerError(500, 'InternalError', error instanceof Error ? error.message : String(error));
    const { contentType, body } = errorBody(err, version, xml);
    if (res.headersSent) { res.destroy(); return; }
    await send(res, err.status, { 'content-type': contentType, ...versionHeader(version), ...err.headers }, body, { head: req.method === 'HEAD' });
  }
}

function versionHeader(version: ODataVersion): Record<string, string> {
  return version === 4 ? { 'odata-version': '4.0' } : { dataserviceversion: '2.0' };
}

async function dispatch(r: Request, rest: string): Promise<void> {
  if (rest === '') return serviceDocument(r);
  if (rest === '$metadata') return metadata(r);
  const segments = rest.split('/').map((s) => decodeComponent(s, 'resource path'));
  const m = /^([A-Za-z_]\w*)(?:\((.*)\))?$/s.exec(segments[0] ?? '');
  const set = m ? ENTITY_SETS.get(m[1] as string) : undefined;
  if (!m || !set) throw new ODataServerError(404, 'NotFound', `Resource not found for the segment '${segments[0] ?? ''}'`);
  const sizes = r.ctx.sizes;
  if (m[2] === undefined) {
    const whole: IndexRange = { start: 1, step: 1, count: set.size(sizes) };
    if (segments.length === 1) return collection(r, set, whole, set.name);
    if (segments.length === 2 && segments[1] === '$count') return count(r, set, whole);
    throw badRequest(`Unexpected segment '${segments[1] ?? ''}' after the collection ${set.name}; give a key first`);
  }
  const index = findByKey(set, m[2], r.version, sizes);
  const row = set.row(index);
  const keyText = `${set.name}(${m[2]})`;
  if (segments.length === 1) return entity(r, set, row);
  const seg = segments[1] as string;
  const nav = set.navs.find((n) => n.name === seg);
  if (nav) {
    const target = ENTITY_SETS.get(nav.target) as EntitySetDef;
    const range = nav.resolve(row, sizes);
    if (nav.many) {
      if (segments.length === 2) return collection(r, target, range, target.name);
      if (segments.length === 3 && segments[2] === '$count') return count(r, target, range);
    } else if (segments.length === 2) {
      return entity(r, target, target.row(range.start));
    }
    throw badRequest(`Unsupported path after ${keyText}/${seg}`);
  }
  const prop = set.properties.find((p) => p.name === seg);
  if (prop && segments.length === 2) {
    parseQuery(r.search, r.version);
    const body = r.version === 4
      ? `{"@odata.context":${JSON.stringify(`${r.root}$metadata#${keyText}/${prop.name}`)},"value":${prop.v4(row, ieee754(r))}}`
      : `{"d":{"${prop.name}":${prop.v2(row)}}}`;
    return send(r.res, 200, jsonHeaders(r), body, { head: r.head });
  }
  throw new ODataServerError(404, 'NotFound', `${set.typeName} has no property '${seg}'`);
}

function findByKey(set: EntitySetDef, text: string, version: ODataVersion, sizes: SetSizes): number {
  const key: Record<string, Value> = {};
  const parts = text.split(/,(?=(?:[^']*'[^']*')*[^']*$)/);
  const named = parts.map((p) => /^\s*([A-Za-z_]\w*)\s*=(.*)$/s.exec(p));
  if (parts.length === 1 && !named[0]) {
    if (set.keys.length !== 1) throw badRequest(`${set.name} has a composite key: name each of ${set.keys.join(', ')}`, 'key predicate');
    key[set.keys[0] as string] = keyValue(set, set.keys[0] as string, parts[0] as string, version);
  } else {
    for (const [k, match] of named.entries()) {
      if (!match) throw badRequest(`Invalid key predicate part '${parts[k] ?? ''}'`, 'key predicate');
      const name = match[1] as string;
      if (!set.keys.includes(name)) throw badRequest(`'${name}' is not a key property of ${set.typeName}`, 'key predicate');
      if (name in key) throw badRequest(`Key property '${name}' given twice`, 'key predicate');
      key[name] = keyValue(set, name, match[2] as string, version);
    }
    const missing = set.keys.filter((k) => !(k in key));
    if (missing.length > 0) throw badRequest(`Key predicate misses ${missing.join(', ')}`, 'key predicate');
  }
  const index = set.find(key, sizes);
  if (index === undefined) throw new ODataServerError(404, 'NotFound', `No ${set.typeName} with key (${text})`);
  return index;
}

function keyValue(set: EntitySetDef, name: string, text: string, version: ODataVersion): Value {
  const prop = set.properties.find((p) => p.name === name);
  const { type, value } = parseLiteral(text.trim(), version);
  const want = prop?.type === 'Edm.String' ? 'str' : 'int';
  if (type !== want) throw badRequest(`Key property '${name}' needs a ${prop?.type ?? ''} literal, got '${text}'`, 'key predicate');
  return value;
}

function ieee754(r: Request): boolean {
  const accept = String(r.req.headers.accept ?? '');
  const format = /(?:^|&)\$format=([^&]*)/.exec(r.search)?.[1] ?? '';
  // JSON Format 4.01 section 3.2: the IEEE754Compatible format parameter asks for strings
  const contentType = String(r.req.headers['content-type'] ?? '');
  return /IEEE754Compatible=true/i.test(accept) || /IEEE754Compatible=true/i.test(contentType) ||
    /IEEE754Compatible(?:=|%3D)true/i.test(format);
}

function jsonHeaders(r: Request, collection = false): Record<string, string> {
  if (collection && r.ctx.faults.current.wrongContentType) return { 'content-type': 'text/html;charset=utf-8', ...versionHeader(r.version) };
  if (r.version === 2) return { 'content-type': 'application/json;charset=utf-8', ...versionHeader(2) };
  const ieee = ieee754(r);
  return {
    'content-type': `application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=${ieee}`,
    ...versionHeader(4),
  };
}

function checkFormat(q: QueryOptions): void {
  if (q.format === undefined) return;
  const f = q.format.toLowerCase();
  if (f === 'json' || f.startsWith('application/json')) return;
  if (/^(xml|atom|application\/(xml|atom\+xml))/.test(f)) {
    throw new ODataServerError(406, 'NotAcceptable', 'This test server serves data as JSON only; use $format=json');
  }
  throw badRequest(`Unsupported $format '${q.format}'`, '$format');
}

async function serviceDocument(r: Request): Promise<void> {
  const names = [...ENTITY_SETS.keys()];
  const body = r.version === 4
    ? JSON.stringify({ '@odata.context': `${r.root}$metadata`, value: names.map((name) => ({ name, kind: 'EntitySet', url: name })) })
    : JSON.stringify({ d: { EntitySets: names } });
  await send(r.res, 200, jsonHeaders(r), body, { head: r.head });
}

async function metadata(r: Request): Promise<void> {
  const q = parseQuery(r.search, r.version);
  const accept = String(r.req.headers.accept ?? '');
  const wantsJson = (q.format !== undefined && /^(json|application\/json)/i.test(q.format)) ||
    (q.format === undefined && accept.includes('application/json') && !accept.includes('xml'));
  const writes = r.ctx.writes;
  if (r.version === 4 && wantsJson) {
    const json = writes ? writes.metadata(metadataV4Json(), 4, true) : metadataV4Json();
    await send(r.res, 200, { 'content-type': 'application/json', ...versionHeader(4) }, json, { head: r.head });
    return;
  }
  const xml = r.version === 4 ? metadataV4Xml() : metadataV2Xml();
  const body = writes ? writes.metadata(xml, r.version, false) : xml;
  await send(r.res, 200, { 'content-type': 'application/xml;charset=utf-8', ...versionHeader(r.version) }, body, { head: r.head });
}

async function entity(r: Request, set: EntitySetDef, row: unknown): Promise<void> {
  const q = parseQuery(r.search, r.version);
  for (const opt of ['filter', 'orderby', 'top', 'skip', 'skiptoken', 'search'] as const) {
    if (q[opt] !== undefined) throw badRequest(`$${opt} is not allowed on a single entity`, `$${opt}`);
  }
  const proj = compileProjection(set, q.select, q.expand, r.version, r.ctx.sizes);
  checkFormat(q);
  const body = r.version === 4
    ? entityV4(`${r.root}$metadata#${contextFragment(set.name, proj)}/$entity`, row, rowWriterV4(proj, r.ctx.sizes, ieee754(r)))
    : entityV2(row, rowWriterV2(proj, r.ctx.sizes, r.root));
  await send(r.res, 200, jsonHeaders(r), body, { head: r.head });
}

function resultOf(r: Request, set: EntitySetDef, base: IndexRange, q: QueryOptions) {
  const exprCtx = { set, version: r.version, sizes: r.ctx.sizes };
  const filter = q.filter !== undefined ? compileFilter(q.filter, exprCtx) : undefined;
  const orderby = q.orderby !== undefined ? compileOrderBy(q.orderby, exprCtx) : undefined;
  const key = set.keys.length === 1 ? set.keys[0] : undefined;
  const byKey = q.orderby !== undefined && key !== undefined ? new RegExp(`^\\s*${key}(?:\\s+(asc|desc))?\\s*$`).exec(q.orderby) : null;
  return evaluate({
    set, base,
    ...(byKey ? { keyOrder: byKey[1] === 'desc' ? 'desc' as const : 'asc' as const } : {}),
    ...(filter ? { filter } : {}),
    ...(orderby ? { orderby } : {}),
    ...(q.search !== undefined ? { search: q.search } : {}),
    cacheKey: JSON.stringify([r.version, q.filter, q.orderby, q.search]),
  }, r.ctx.cache);
}

async function count(r: Request, set: EntitySetDef, base: IndexRange): Promise<void> {
  const q = parseQuery(r.search, r.version);
  const total = resultOf(r, set, base, q).total;
  await send(r.res, 200, { 'content-type': 'text/plain;charset=utf-8', ...versionHeader(r.version) }, String(total), { head: r.head });
}

/** `Prefer: odata.maxpagesize=N` (OData Protocol v4.01 section 8.2.8.3), v4 only. */
function maxPageSize(r: Request): number | undefined {
  if (r.version !== 4) return undefined;
  const m = /(?:^|[,;\s])(?:odata\.)?maxpagesize=(\d+)/i.exec(String(r.req.headers.prefer ?? ''));
  const n = m ? Number(m[1]) : undefined;
  return n !== undefined && n > 0 ? n : undefined;
}

async function collection(r: Request, set: EntitySetDef, base: IndexRange, contextSet: string): Promise<void> {
  const { ctx } = r;
  const q = parseQuery(r.search, r.version);
  const preferred = maxPageSize(r);
  const pageSize = preferred !== undefined ? Math.min(ctx.pageSize, preferred) : ctx.pageSize;
  const offset = q.skiptoken ?? 0;
  const page = Math.floor(offset / pageSize);
  const faults = ctx.faults.current;
  if (faults.latencyMs) await delay(faults.latencyMs);
  if (ctx.faults.take('failPage', page)) {
    const f = faults.failPage as NonNullable<typeof faults.failPage>;
    const status = f.status ?? 503;
    const err = new ODataServerError(status, STATUS_CODES[status] ?? `Http${status}`, `Injected failure of page ${page}`);
    const { contentType, body } = errorBody(err, r.version, f.xml === true);
    const headers: Record<string, string> = { 'content-type': contentType, ...versionHeader(r.version) };
    if (f.retryAfter !== undefined) headers['retry-after'] = String(f.retryAfter);
    await send(r.res, err.status, headers, body, { head: r.head });
    return;
  }
  const ieee = ieee754(r);
  const cacheKey = (search: string): string => `${r.path}?${search}|${ieee}|${pageSize}|${faults.foreignNextLink ?? ''}`;
  let body = ctx.pages?.get(cacheKey(r.search));
  if (!body) {
    const page = renderPage(r, set, base, q, pageSize, offset, contextSet, ieee);
    body = Buffer.from(page.text, 'utf8');
    if (ctx.pages) {
      ctx.pages.set(cacheKey(r.search), body);
      // render the next page while the client parses this one, so a sequential reader overlaps with us
      const nextSearch = page.nextSkiptoken === undefined ? undefined : nextQuery(r.search, page.nextSkiptoken);
      if (nextSearch !== undefined) {
        setImmediate(() => {
          const key = cacheKey(nextSearch);
          if (ctx.pages?.get(key)) return;
          try {
            const nr: Request = { ...r, search: nextSearch };
            const next = renderPage(nr, set, base, parseQuery(nextSearch, r.version), pageSize, page.nextSkiptoken as number, contextSet, ieee);
            ctx.pages?.set(key, Buffer.from(next.text, 'utf8'));
          } catch {
            // only a head start: the real request renders the page and reports any error itself
          }
        });
      }
    }
  }
  const headers = jsonHeaders(r, true);
  if (preferred !== undefined) headers['preference-applied'] = `odata.maxpagesize=${preferred}`;
  if (faults.slowFirstByteMs) await delay(faults.slowFirstByteMs);
  const plan: SendPlan = { head: r.head };
  if (faults.chunked) plan.chunked = faults.chunked;
  if (ctx.faults.take('resetPage', page)) plan.reset = true;
  else if (ctx.faults.take('truncatePage', page)) plan.truncate = true;
  await send(r.res, 200, headers, body, plan);
}

/** Evaluates and serializes one page of a collection; `nextSkiptoken` is set when rows remain. */
function renderPage(
  r: Request, set: EntitySetDef, base: IndexRange, q: QueryOptions, pageSize: number, offset: number, contextSet: string, ieee: boolean,
): { text: string; nextSkiptoken?: number } {
  const { ctx } = r;
  const proj = compileProjection(set, q.select, q.expand, r.version, ctx.sizes);
  const result = resultOf(r, set, base, q);
  // query errors first, so a $format=xml request sees them as SAP XML errors
  checkFormat(q);
  const skip = q.skip ?? 0;
  const available = Math.max(0, Math.min(result.total - skip, q.top ?? Infinity));
  const n = Math.max(0, Math.min(pageSize, available - offset));
  const indexes = result.slice(skip + offset, n);
  const next = offset + n < available ? nextLink(r, offset + n) : undefined;
  const total = q.count ? result.total : undefined;
  const more = next === undefined ? {} : { nextSkiptoken: offset + n };
  if (set.name === 'Products' && !proj.selected && proj.expands.length === 0) {
    // whole Products rows: the benchmark case, written straight from the index
    const text = r.version === 4
      ? collectionV4(`${r.root}$metadata#Products`, indexes, (i) => productJsonV4(i, ieee), total, next)
      : collectionV2(indexes, (i) => productJsonV2(i, r.root), total, next);
    return { text, ...more };
  }
  const rows = indexes.map((i) => set.row(i));
  const text = r.version === 4
    ? collectionV4(`${r.root}$metadata#${contextFragment(contextSet, proj)}`, rows, rowWriterV4(proj, ctx.sizes, ieee), total, next)
    : collectionV2(rows, rowWriterV2(proj, ctx.sizes, r.root), total, next);
  return { text, ...more };
}

/** The next link: same path and options as sent, `$skiptoken` replaced (Protocol v4.01 11.2.6.7). */
function nextLink(r: Request, skiptoken: number): string {
  const origin = r.ctx.faults.current.foreignNextLink ?? r.ctx.origin;
  return `${origin}${r.path}?${nextQuery(r.search, skiptoken)}`;
}

/** The query of a next link: the request's pairs as sent, with `$skiptoken` replaced. */
function nextQuery(search: string, skiptoken: number): string {
  const kept = search.split('&').filter((p) => p !== '' && !p.startsWith('$skiptoken='));
  kept.push(`$skiptoken=${skiptoken}`);
  return kept.join('&');
}
