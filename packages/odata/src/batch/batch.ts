// od.batch(): collects reads and changesets, sends them as $batch requests of at most maxOperations
// operations (changesets kept whole), and answers one result per operation in request order.
import { checkCallOptions } from '../call-options.js';
import { ConfigError } from '@sluice/core';
import type { ODataProtocol } from '../protocol/types.js';
import type { QueryBase } from '../query/base.js';
import { EntityQuery, Query } from '../query/query.js';
import type { HasUntyped } from '../untyped-view.js';
import { encodeEntity } from '../write/encode.js';
import { ifMatchOf } from '../write/etag.js';
import type { WriteHost, WriteOptions } from '../write/host.js';
import type { CreateOptions, DeleteOptions, UpdateOptions } from '../write/entity-writes.js';
import { resultOf, type BatchResult, type ResultShape } from './results.js';
import { sendBatch } from './send.js';
import type { BatchGroup, BatchPartRequest } from './types.js';

/** Options of {@link Batch.send}. */
export interface BatchSendOptions extends Omit<WriteOptions, 'tunnel'> {
  /**
   * `'multipart'` (default; OData v2 and v4) or `'json'` (the OData 4.01 JSON batch format, for services
   * that speak 4.01).
   */
  format?: 'multipart' | 'json' | undefined;
  /** Most operations per $batch request (default 100; gateways limit it). A changeset is never split. */
  maxOperations?: number | undefined;
  /**
   * JSON batch: a request that refers to one of another atomicity group lists that group in `dependsOn`
   * besides the request, as JSON Format 4.01 section 19.1 requires (default true). false lists only the
   * request: SAP CAP (cds 9) answers 424 to a group in `dependsOn`.
   */
  dependsOnGroups?: boolean | undefined;
}


/**
 * Where an operation refers to an entity created earlier in the batch (`$1`, `$1/Lines`): in the same
 * changeset in any format; from another changeset or a read only in the JSON batch format (OData 4.01
 * `dependsOn`).
 */
export class BatchRef {
  /** `$<Content-ID>`, with the navigation properties that follow it. */
  readonly path: string;
  /** @internal */
  readonly changeset: number;
  /** @internal */
  constructor(path: string, changeset: number) {
    this.path = path;
    this.changeset = changeset;
  }
  /** The ref followed by a navigation property, such as `$1/Lines`. */
  nav(property: string): BatchRef {
    if (!/^[A-Za-z_][\w.]*$/.test(property)) throw new ConfigError('nav', `must be a property name, got ${JSON.stringify(property)}`);
    return new BatchRef(`${this.path}/${property}`, this.changeset);
  }
}

/** A query or an entity addressed as a target of a batch operation (typed ones as they are), or a ref. */
export type BatchTarget = HasUntyped<QueryBase<unknown>> | BatchRef;

/** The query of a target (a typed query's untyped view), or the ref. */
function untypedTarget(target: BatchTarget): QueryBase<unknown> | BatchRef {
  return target instanceof BatchRef ? target : target.untyped;
}

/** @internal */
type Build = (protocol: ODataProtocol) => { request: BatchPartRequest; shape: ResultShape };

/** One operation of a batch; `result` is there once the batch was sent. */
export class BatchOperation<T = unknown> {
  private value: BatchResult<T> | undefined;
  /** @internal */
  readonly build: Build;
  /** The operation's Content-ID in its changeset (undefined for a read). */
  readonly contentId: string | undefined;
  /** @internal */
  readonly group: number;
  /** @internal */
  readonly refersTo: BatchRef | undefined;
  /** @internal */
  constructor(build: Build, contentId: string | undefined, group: number, refersTo?: BatchRef) {
    this.build = build;
    this.contentId = contentId;
    this.group = group;
    this.refersTo = refersTo;
  }
  /** Its result after `send()` resolved. */
  get result(): BatchResult<T> {
    if (this.value === undefined) throw new ConfigError('result', 'is there only after the batch was sent');
    return this.value;
  }
  /** @internal */
  settle(result: BatchResult): void {
    this.value = result as BatchResult<T>;
  }
  /**
   * A reference to what this create made (`$<Content-ID>`), for later operations of the same changeset, or
   * with `format: 'json'` of later changesets and reads too.
   */
  ref(): BatchRef {
    if (this.contentId === undefined) throw new ConfigError('ref', 'only operations of a changeset have a Content-ID');
    return new BatchRef(`$${this.contentId}`, this.group);
  }
}

const WRITE_NAMES = { POST: 'create()', PATCH: 'update()', PUT: 'replace()', DELETE: 'delete()' } as const;

/** Builds the writes of one changeset (an atomic group: all apply or none). */
export class Changeset {
  /** @internal */
  readonly ops: BatchOperation[];
  /** @internal */
  constructor(private readonly batch: Batch, private readonly index: number, ops: BatchOperation[]) {
    this.ops = ops;
  }

  /** POST an entity to a collection (or to `ref.nav('Lines')`). */
  create<T = Record<string, unknown>>(target: BatchTarget, entity: Record<string, unknown>, options: Pick<CreateOptions, 'prefer' | 'headers'> = {}): BatchOperation<T> {
    checkCallOptions('changeset create()', where(target), options, 'batchCreate');
    return this.add<T>(target, 'POST', entity, 'entity', options.headers, options.prefer, undefined);
  }

  /** PATCH (v2 MERGE) an entity; `etag` sends If-Match as in `update()`. */
  update<T = Record<string, unknown>>(target: BatchTarget, changes: Record<string, unknown>, options: Pick<UpdateOptions, 'prefer' | 'etag' | 'headers'> = {}): BatchOperation<T> {
    checkCallOptions('changeset update()', where(target), options, 'batchUpdate');
    return this.add<T>(target, 'PATCH', changes, 'changes', options.headers, options.prefer, options.etag ?? (typeof changes['@odata.etag'] === 'string' ? changes : undefined));
  }

  /** PUT the whole entity. */
  replace<T = Record<string, unknown>>(target: BatchTarget, entity: Record<string, unknown>, options: Pick<UpdateOptions, 'prefer' | 'etag' | 'headers'> = {}): BatchOperation<T> {
    checkCallOptions('changeset replace()', where(target), options, 'batchUpdate');
    return this.add<T>(target, 'PUT', entity, 'entity', options.headers, options.prefer, options.etag);
  }

  /** DELETE an entity; `etag` as for update(). */
  delete(target: BatchTarget, options: Pick<DeleteOptions, 'etag' | 'headers'> = {}): BatchOperation<void> {
    checkCallOptions('changeset delete()', where(target), options, 'batchDelete');
    return this.add<void>(target, 'DELETE', undefined, 'entity', options.headers, undefined, options.etag);
  }

  private add<T>(given: BatchTarget, method: 'POST' | 'PATCH' | 'PUT' | 'DELETE', entity: unknown, what: 'entity' | 'changes', headers: Readonly<Record<string, string>> | undefined, prefer: 'minimal' | 'representation' | undefined, etag: unknown): BatchOperation<T> {
    const target = untypedTarget(given);
    if (!(target instanceof BatchRef)) target.checkWritable(`A changeset ${WRITE_NAMES[method]}`);
    const ifMatch = ifMatchOf(etag as string | object | undefined);
    const host = this.batch.host;
    const build: Build = (protocol) => {
      const { url, entityType } = target instanceof BatchRef ? { url: host.serviceURL + target.path, entityType: undefined } : target.render(protocol);
      const settings = host.writeSettings();
      const m = method === 'POST' ? { method, headers: {} } : protocol.write.method(method, false);
      const base = protocol.write.writeHeaders(settings.largeNumbers);
      const h: Record<string, string> = { ...headers, accept: base['accept'] ?? 'application/json', ...m.headers };
      if (entity !== undefined) h['content-type'] = base['content-type'] ?? 'application/json';
      if (ifMatch !== undefined) h['if-match'] = ifMatch;
      const preferValue = prefer === undefined ? undefined : protocol.write.prefer(prefer);
      if (preferValue !== undefined) h['prefer'] = preferValue;
      const body = entity === undefined ? undefined : encodeEntity(entity, entityType, { protocol, metadata: host.loadedMetadata(), ieee754: settings.largeNumbers === 'string' }, what);
      const request = { method: m.method, url: relative(host, url), headers: h, body, contentId: op.contentId };
      return { request, shape: { method: m.method, url, collection: false, entityType } };
    };
    const op = new BatchOperation<T>(build, this.batch.nextContentId(), this.index, target instanceof BatchRef ? target : undefined);
    this.ops.push(op as BatchOperation);
    return op;
  }
}

/** The path a batch operation is addressed to, for messages. */
function where(given: BatchTarget): string {
  const target = untypedTarget(given);
  return target instanceof BatchRef ? target.path : target.where();
}

function relative(host: WriteHost, url: string): string {
  return url.startsWith(host.serviceURL) ? url.slice(host.serviceURL.length) : url;
}

/**
 * A batch (SPEC 4.5): reads with `get()`, atomic groups of writes with `changeset()`, sent together
 * with `send()`. Create it with `od.batch()`.
 *
 * @example
 * ```ts
 * const batch = od.batch()
 * const product = batch.get(od.from('Products').key(1))
 * const order = batch.changeset((cs) => {
 *   const created = cs.create(od.from('Orders'), { Customer: 'ACME' })
 *   cs.create(created.ref().nav('Lines'), { Product: 'P1', Qty: 2 })
 *   return created
 * })
 * const results = await batch.send()
 * if (product.result.ok) console.log(product.result.value)
 * ```
 */
export class Batch {
  private readonly groups: Array<{ kind: 'single'; op: BatchOperation } | { kind: 'changeset'; cs: Changeset }> = [];
  private contentIds = 0;

  /** @internal */
  readonly host: WriteHost;

  /** @internal (made by `od.batch()`) */
  constructor(host: WriteHost) {
    this.host = host;
  }

  /** @internal */
  nextContentId(): string {
    return String(++this.contentIds);
  }

  /**
   * Reads an entity (`od.from('X').key(1)`) or a collection (its first page, as an array), or, with
   * `format: 'json'`, what an earlier changeset created (`op.ref()`, run after that changeset succeeded).
   */
  get<T>(query: HasUntyped<Query<T>>, options?: { headers?: Readonly<Record<string, string>> | undefined }): BatchOperation<T[]>;
  get<T>(query: HasUntyped<EntityQuery<T>> | BatchRef, options?: { headers?: Readonly<Record<string, string>> | undefined }): BatchOperation<T>;
  get(given: BatchTarget, options: { headers?: Readonly<Record<string, string>> | undefined } = {}): BatchOperation {
    const query = untypedTarget(given);
    checkCallOptions('batch get()', where(query), options, 'batchGet');
    const host = this.host;
    const collection = query instanceof Query;
    const build: Build = (protocol) => {
      const { url, entityType } = query instanceof BatchRef ? { url: host.serviceURL + query.path, entityType: undefined } : query.render(protocol);
      const { accept } = protocol.requestHeaders(host.writeSettings().largeNumbers);
      const request = { method: 'GET', url: relative(host, url), headers: { ...options.headers, ...(accept ? { accept } : {}) } };
      return { request, shape: { method: 'GET', url, collection, entityType } };
    };
    const op = new BatchOperation(build, undefined, this.groups.length, query instanceof BatchRef ? query : undefined);
    this.groups.push({ kind: 'single', op });
    return op;
  }

  /**
   * Adds a changeset: the writes `build` adds apply together or not at all. Returns what `build` returns,
   * so an operation made inside can be used later (`const order = batch.changeset((cs) => cs.create(…))`).
   * `build` adds its writes at once: a promise from it is a ConfigError.
   */
  changeset<R = void>(build: (cs: Changeset) => R): R {
    const cs = new Changeset(this, this.groups.length, []);
    const result = build(cs);
    if (typeof (result as { then?: unknown } | undefined)?.then === 'function') {
      throw new ConfigError('changeset', 'callback must add its writes synchronously, not return a promise');
    }
    if (cs.ops.length === 0) throw new ConfigError('changeset', 'must contain at least one operation');
    this.groups.push({ kind: 'changeset', cs });
    return result;
  }

  /** Number of operations collected. */
  get size(): number {
    return this.groups.reduce((n, g) => n + (g.kind === 'single' ? 1 : g.cs.ops.length), 0);
  }

  /**
   * Sends the batch (several $batch requests when it has more than `maxOperations` operations) and
   * resolves with one result per operation, in the order they were added. A failed operation is a result
   * with `ok: false`, not a rejection; the promise rejects only when a $batch request itself fails
   * (ODataError, BatchFormatError, network errors).
   */
  async send(options: BatchSendOptions = {}): Promise<BatchResult[]> {
    checkCallOptions('send()', 'batch', options, 'batchSend');
    const max = options.maxOperations ?? 100;
    if (!Number.isSafeInteger(max) || max < 1) throw new ConfigError('maxOperations', `must be an integer >= 1, got ${String(max)}`);
    const format = options.format ?? 'multipart';
    if (format !== 'multipart' && format !== 'json') throw new ConfigError('format', `must be 'multipart' or 'json', got ${String(format)}`);
    if (options.dependsOnGroups !== undefined && typeof options.dependsOnGroups !== 'boolean') throw new ConfigError('dependsOnGroups', `must be a boolean, got ${String(options.dependsOnGroups)}`);
    const protocol = await this.host.protocolReady(options.signal);
    if (format === 'json' && protocol.version !== '4.0') throw new ConfigError('format', "'json' needs an OData 4.01 service");
    const results: BatchResult[] = [];
    // Content-ID → the Location its create answered, for URLs and relative Locations of operations addressed through `$n`.
    const locations = new Map<string, string>();
    const split = chunks(this.groups, max);
    // Every reference is checked before the first $batch request goes out.
    for (const chunk of split) {
      const ops = chunk.map((g) => (g.kind === 'single' ? [g.op] : g.cs.ops));
      checkRefs(ops.flat(), new Set(ops.map((list) => list[0]!.group)), format);
    }
    for (const chunk of split) {
      const ops = chunk.map((g) => (g.kind === 'single' ? [g.op] : g.cs.ops));
      const built = ops.map((list) => list.map((op) => op.build(protocol)));
      const groups: BatchGroup[] = built.map((list, i) => (chunk[i]!.kind === 'single' ? { kind: 'single', request: list[0]!.request } : { kind: 'changeset', requests: list.map((b) => b.request) }));
      const responses = await sendBatch(this.host, protocol, groups, format, options);
      const { largeNumbers, dates, precision } = this.host.writeSettings();
      const decode = { largeNumbers, dates, metadata: this.host.loadedMetadata() };
      responses.forEach((group, gi) => {
        ops[gi]!.forEach((op, oi) => {
          // A changeset answered by one (error) response: that response is every operation's.
          const response = group.length === 1 ? group[0]! : group[oi]!;
          const shape = built[gi]![oi]!.shape;
          const result = resultOf(response, { ...shape, url: resolveReference(shape.url, this.host.serviceURL, locations) }, protocol, decode, precision);
          if (op.contentId !== undefined && result.ok && result.location !== undefined) locations.set(op.contentId, result.location);
          op.settle(result);
          results.push(result);
        });
      });
    }
    return results;
  }
}

/**
 * Content-ID references a $batch request can carry: multipart only inside one changeset (OData 4.01 Part 1
 * section 11.7.7.2); JSON across atomicity groups and from reads (JSON Format 4.01 section 19.1,
 * `dependsOn`); always to a request of the same $batch request.
 */
function checkRefs(ops: readonly BatchOperation[], groups: ReadonlySet<number>, format: 'multipart' | 'json'): void {
  for (const op of ops) {
    const ref = op.refersTo;
    if (ref === undefined) continue;
    if (format === 'multipart' && (ref.changeset !== op.group || op.contentId === undefined)) {
      throw new ConfigError('format', `${ref.path} is referred to from ${op.contentId === undefined ? 'a read' : 'another changeset'}: multipart batches allow Content-ID references only inside one changeset; send with format: 'json' (OData 4.01 dependsOn)`);
    }
    if (!groups.has(ref.changeset)) throw new ConfigError('maxOperations', `splits ${ref.path} from the operation referring to it into another $batch request: raise maxOperations`);
  }
}

/**
 * The URL an operation addressed through a Content-ID reference (`<service>/$1/Orders`) stands for: the
 * reference replaced by the Location of the operation it names (OData 4.01 Part 1 section 11.7.7.2), so
 * that a relative Location in its answer resolves against a URL that exists. Unchanged when the
 * referenced operation gave no Location.
 */
function resolveReference(url: string, serviceURL: string, locations: ReadonlyMap<string, string>): string {
  if (!url.startsWith(`${serviceURL}$`)) return url;
  const rest = url.slice(serviceURL.length + 1);
  const end = rest.search(/[/?]/);
  const id = end < 0 ? rest : rest.slice(0, end);
  const location = locations.get(id);
  return location === undefined ? url : location + (end < 0 ? '' : rest.slice(end));
}

/** Groups into requests of at most `max` operations; a changeset larger than `max` goes alone. */
function chunks<G extends { kind: 'single' } | { kind: 'changeset'; cs: Changeset }>(groups: readonly G[], max: number): G[][] {
  const out: G[][] = [];
  let current: G[] = [];
  let size = 0;
  for (const g of groups) {
    const n = g.kind === 'single' ? 1 : (g as { cs: Changeset }).cs.ops.length;
    if (size > 0 && size + n > max) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(g);
    size += n;
  }
  if (current.length > 0) out.push(current);
  return out;
}
