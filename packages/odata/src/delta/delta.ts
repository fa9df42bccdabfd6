// DeltaSync (SPEC 9): a first full read with `Prefer: odata.track-changes`, then reads of the kept delta
// link that give only what changed: entities, removals, links and deleted links.
import { checkOptionKeys, ConfigError, SluiceError } from '@sluice/core';
import type { ODataClient } from '../client.js';
import type { HasUntyped } from '../untyped-view.js';
import type { Query } from '../query/query.js';
import { toODataError } from '../read/error-body.js';
import { entitySetOf, PageCounter } from '../telemetry.js';
import type { EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import { keyPredicate, type KeyValue } from '../query/state.js';
import { withoutControl } from '../read/control.js';
import { guardParser, readJsonAnswer } from '../read/json-answer.js';
import { recordDecoder } from '../v4/values.js';
import type { WriteHost } from '../write/host.js';
import type { DeltaStore } from './store.js';

/**
 * Changes of an expanded navigation property inside a changed entity (OData JSON 4.01 `"Orders@delta": [...]`),
 * by navigation property. A removal names the related entity by its `@id` or, without one, by its `key`
 * (then `id` is built from the entity set its `@context` names, else undefined).
 */
export type DeltaRelated = Readonly<Record<string, readonly DeltaRelatedChange[]>>;

/** One change of a related entity in a nested delta (see {@link DeltaRelated}). */
export type DeltaRelatedChange =
  | { readonly kind: 'entity'; readonly value: Record<string, unknown>; readonly related?: DeltaRelated | undefined }
  | { readonly kind: 'removed'; readonly id: string | undefined; readonly key: Readonly<Record<string, unknown>> | undefined; readonly reason: string | undefined };

/**
 * One change of a delta read. A first read (no link kept yet) gives every entity as `entity`. A removal
 * has its `id` (`@id`, or, when the service names it only by its key properties as OData JSON 4.01
 * allows, built as `<EntitySet>(<key>)` relative to the service root) and its `key` when it came so.
 * An entity with nested deltas of expanded navigations has them in `related`.
 */
export type DeltaChange<T> =
  | { readonly kind: 'entity'; readonly value: T; readonly related?: DeltaRelated | undefined }
  | { readonly kind: 'removed'; readonly id: string; readonly key?: Readonly<Record<string, unknown>> | undefined; readonly reason: string | undefined }
  | { readonly kind: 'link' | 'deletedLink'; readonly source: string; readonly relationship: string; readonly target: string };

/**
 * The service refused the kept delta link (`410 Gone`, or an expired token). The link has been
 * discarded: call `changes()` again for a full read, which starts tracking anew.
 */
export class DeltaExpiredError extends SluiceError {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Options of {@link DeltaSync}. */
export interface DeltaSyncOptions {
  /** Where the delta link is kept between runs, such as a {@link FileDeltaStore}. */
  store: DeltaStore;
  /** The key of this sync in the store (default: the entity set). */
  key?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Request the next page while the caller works on the current one, as `stream()` does (default true). */
  prefetch?: boolean | undefined;
}

type RawPage = ReturnType<typeof pageOf>;

/** One page of {@link DeltaSync.pages}: its changes and the link to resume from after it. */
export interface DeltaPage<T> {
  readonly changes: readonly DeltaChange<T>[];
  /** The next page of this read (resolved); undefined on the last page. */
  readonly nextLink: string | undefined;
  /** On the last page: the delta link for the next run (resolved); undefined when the service sent none. */
  readonly deltaLink: string | undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/**
 * One delta page: v4 `value` with `@odata.nextLink` / `@odata.deltaLink` (4.01: `@nextLink`, `@deltaLink`);
 * v2 (SAP Gateway) `d.results` with `d.__next` / `d.__delta`.
 */
function pageOf(page: Record<string, unknown>, v2: boolean): { items: unknown[]; next: string | undefined; delta: string | undefined } {
  if (v2) {
    const d = page['d'];
    const body = typeof d === 'object' && d !== null ? (d as Record<string, unknown>) : {};
    const items = Array.isArray(d) ? d : body['results'];
    if (!Array.isArray(items)) throw new SluiceError('A delta page has no d.results array');
    return { items, next: str(body['__next']), delta: str(body['__delta']) };
  }
  const items = page['value'];
  if (!Array.isArray(items)) throw new SluiceError('A delta page has no value array');
  return { items, next: str(page['@odata.nextLink']) ?? str(page['@nextLink']), delta: str(page['@odata.deltaLink']) ?? str(page['@deltaLink']) };
}

/** How the items of one delta level are read: the decoder, and the set and type they belong to when known. */
interface Level {
  /** Decodes an entity of the given type as `stream()` does (Doubles' `"INF"`/`"NaN"`, dates, v2 values). */
  readonly decode: (raw: unknown, type: EntityTypeInfo | undefined) => unknown;
  readonly protocol: ODataProtocol;
  readonly metadata: ServiceMetadata | undefined;
  /** The entity set of this level's items (the query's, for the top level), when known. */
  readonly set: string | undefined;
  readonly type: EntityTypeInfo | undefined;
}

const NESTED_DELTA = /^(.+)@(?:odata\.)?delta$/;

/** The entity set a context URL names (`$metadata#Customers/$deletedEntity`, `#Orders/$entity`). */
function setOfContext(context: string | undefined): string | undefined {
  const name = context === undefined ? undefined : /#([A-Za-z_][\w.]*)(?:[/(]|$)/.exec(context)?.[1];
  return name === undefined || name.startsWith('Collection') ? undefined : name;
}

/** The entity set a delta query reads when it is a bare entity set (not a navigation or a single entity). */
function topLevelSet(serviceURL: string, url: string): string | undefined {
  return /^[^/(?#]+(?:\?|$)/.test(url.slice(serviceURL.length)) ? entitySetOf(serviceURL, url) : undefined;
}

/** A removal named by its key properties (4.01): the key, and an id built from the set when known. */
function removalByKey(item: Record<string, unknown>, level: Level, set: string | undefined): { id: string | undefined; key: Record<string, unknown> } | undefined {
  const names = level.type?.key.length ? level.type.key : Object.keys(item).filter((k) => !k.includes('@'));
  const key: Record<string, unknown> = {};
  for (const name of names) if (item[name] !== undefined) key[name] = item[name];
  if (Object.keys(key).length === 0 || names.some((n) => key[n] === undefined)) return undefined;
  let id: string | undefined;
  if (set !== undefined) {
    try {
      const value = names.length === 1 ? key[names[0]!] : key;
      id = set + keyPredicate(level.protocol, value as KeyValue, level.type);
    } catch {
      id = undefined; // A key value with no literal form: the key is reported without an id.
    }
  }
  return { id, key };
}

/** The changes of the nested deltas of an entity item (`Nav@delta`), and the item without them. */
function nestedOf(item: Record<string, unknown>, level: Level): { rest: Record<string, unknown>; related: Record<string, DeltaRelatedChange[]> | undefined } {
  let related: Record<string, DeltaRelatedChange[]> | undefined;
  let rest = item;
  for (const [name, value] of Object.entries(item)) {
    const nav = NESTED_DELTA.exec(name)?.[1];
    if (nav === undefined) continue;
    if (!Array.isArray(value)) throw new SluiceError(`The nested delta ${name} is not an array`);
    if (rest === item) rest = { ...item };
    delete rest[name];
    const target = level.type?.navigation.get(nav)?.type;
    const type = target === undefined ? undefined : level.metadata?.entityTypes.get(target);
    // The set the related entities live in: the parent set's NavigationPropertyBinding in $metadata.
    const bound = level.set === undefined ? undefined : level.metadata?.entitySets.get(level.set)?.navigationBindings.get(nav);
    const nested: Level = { ...level, set: bound?.split('/').at(-1), type };
    related ??= {};
    related[nav] = value.map((v) => relatedOf(v as Record<string, unknown>, nested));
  }
  return { rest, related };
}

function relatedOf(item: Record<string, unknown>, level: Level): DeltaRelatedChange {
  const change = changeOf(item, level, true);
  if (change.kind === 'link' || change.kind === 'deletedLink') throw new SluiceError('A nested delta holds a link; links are reported at the top level');
  return change as DeltaRelatedChange;
}

/**
 * Reads one delta item (OData JSON Format 4.0 section 15 and 4.01 section 15). A v2 removal is an item
 * of `d.results` in the same `$deletedEntity` form, with an `id` (as Apache Olingo's v2 library writes it).
 * A 4.01 removal may name the entity by its key properties instead of `@id`. Nested deltas of expanded
 * navigations (`Orders@delta`) go to `related`; entity values keep only the control information any read keeps.
 */
function changeOf(item: Record<string, unknown>, level: Level, nested = false): DeltaChange<unknown> | DeltaRelatedChange {
  const removed = item['@odata.removed'] ?? item['@removed'];
  const context = str(item['@odata.context']) ?? str(item['@context']);
  if (removed !== undefined || context?.endsWith('$deletedEntity') === true) {
    const reason = str((removed as Record<string, unknown> | undefined)?.['reason']) ?? str(item['reason']);
    // 4.0's $deletedEntity form carries `id` as a property; with @removed, `id` may be a key property.
    const id = str(item['@odata.id']) ?? str(item['@id']) ?? (removed === undefined ? str(item['id']) : undefined);
    if (id !== undefined) return { kind: 'removed', id, reason };
    const byKey = removalByKey(item, level, setOfContext(context) ?? level.set);
    if (byKey === undefined) throw new SluiceError('A delta removal has neither an id nor key properties');
    if (byKey.id === undefined && !nested) throw new SluiceError('A delta removal names its entity by key, but no entity set is known to build its id from');
    return { kind: 'removed', id: byKey.id as string, key: byKey.key, reason };
  }
  if (!nested && context !== undefined && (context.endsWith('$link') || context.endsWith('$deletedLink'))) {
    return { kind: context.endsWith('$link') ? 'link' : 'deletedLink', source: str(item['source']) ?? '', relationship: str(item['relationship']) ?? '', target: str(item['target']) ?? '' };
  }
  const { rest, related } = nestedOf(item, level);
  const value = withoutControl(level.decode(rest, level.type));
  return related === undefined ? { kind: 'entity', value } : { kind: 'entity', value, related } as DeltaChange<unknown>;
}

/**
 * Keeps an entity set in step (OData v4 delta links, OData v2 SAP Gateway `__delta` links): `changes()` yields every entity on the first run and only the
 * changes afterwards; the delta link is saved to the store once the last page was read, so a job resumes
 * after a restart where it left off. The next page is requested while the caller works on the current one
 * (at most two pages in memory; `prefetch: false` reads them one at a time), and breaking out of the loop
 * cancels it.
 *
 * @example
 * ```ts
 * const sync = new DeltaSync(od, od.from('Orders'), { store: new FileDeltaStore('./delta.json') })
 * for await (const change of sync.changes()) console.log(change.kind)
 * ```
 */
export class DeltaSync<T = Record<string, unknown>> {
  private readonly key: string;
  private readonly host: WriteHost;
  private readonly query: Query<T>;
  /** The `OData-MaxVersion` configured on the client's headers (such as `'4.01'`), sent instead of the default `4.0`. */
  private readonly maxVersion: string | undefined;
  /**
   * @param client - the client the query was made with (`od`; a typed client as it is)
   * @param query - the entity set to keep in step (`od.from('Orders')`, with `select`/`filter` as the service allows; a typed query as it is)
   */
  constructor(client: HasUntyped<ODataClient>, query: HasUntyped<Query<T>>, private readonly options: DeltaSyncOptions) {
    this.host = client.untyped;
    this.query = query.untyped;
    this.maxVersion = client.untyped.http.options.headers['odata-maxversion'];
    checkOptionKeys('', options, ['store', 'key', 'signal', 'prefetch']);
    if (typeof options.store?.load !== 'function') throw new ConfigError('store', 'must be a DeltaStore (load, save, clear)');
    if (options.prefetch !== undefined && typeof options.prefetch !== 'boolean') throw new ConfigError('prefetch', `must be a boolean, got ${String(options.prefetch)}`);
    this.key = options.key ?? '';
  }

  /** Forgets the kept link: the next `changes()` is a full read. */
  reset(): Promise<void> {
    return this.options.store.clear(this.storeKey());
  }

  /**
   * The changes since the last completed run (all entities the first time). Rejects with
   * DeltaExpiredError when the service no longer accepts the kept link (the link is then cleared).
   */
  async *changes(): AsyncGenerator<DeltaChange<T>> {
    const protocol = await this.host.protocolReady(this.options.signal);
    for await (const page of this.pages()) {
      yield* page.changes;
      if (page.nextLink === undefined && page.deltaLink === undefined) {
        throw new SluiceError(`The last page of a change-tracking read has no ${protocol.version === '2.0' ? 'd.__delta' : '@odata.deltaLink'}: the service does not track changes of this set`);
      }
    }
  }

  /**
   * The same read page by page, for a caller that commits each page together with the link to resume
   * from (`nextLink`, or `deltaLink` on the last page; both undefined on a last page that has no delta
   * link: the service does not track changes of the set). The store's link is where the read starts, so
   * a kept next link resumes a read in the middle; the delta link is saved once the last page was taken.
   */
  async *pages(): AsyncGenerator<DeltaPage<T>> {
    const protocol = await this.host.protocolReady(this.options.signal);
    const { url: start, entityType } = this.query.render(protocol);
    const kept = await this.options.store.load(this.storeKey());
    let url = kept ?? start;
    const headers: Record<string, string> = { ...protocol.requestHeaders(this.host.writeSettings().largeNumbers) };
    if (kept === undefined) headers['prefer'] = 'odata.track-changes';
    // A client configured for 4.01 payloads (`http: { headers: { 'OData-MaxVersion': '4.01' } }`) gets them:
    // 4.01 removals (`@removed`, by `@id` or key), `@context`, nested `@delta`. Both forms are read.
    if (protocol.version === '4.0' && this.maxVersion !== undefined) headers['odata-maxversion'] = this.maxVersion;
    const { largeNumbers, dates, precision } = this.host.writeSettings();
    const metadata = this.host.loadedMetadata();
    // Entities (top level and nested) are decoded by their type as `stream()` decodes them; removals are left as sent.
    const decode = (raw: unknown, type: EntityTypeInfo | undefined): unknown => {
      const ctx = { largeNumbers, dates, metadata, entityType: type };
      const decodeRecord = recordDecoder(protocol, ctx);
      return decodeRecord ? decodeRecord(raw, ctx) : raw;
    };
    const level: Level = { decode, protocol, metadata, set: topLevelSet(this.host.serviceURL, start), type: entityType };
    const pages = new PageCounter();
    const entitySet = entitySetOf(this.host.serviceURL, start);
    // Aborts the page prefetched when the caller stops reading (or its signal aborts).
    const controller = new AbortController();
    const outer = this.options.signal;
    const signal = outer === undefined ? controller.signal : AbortSignal.any([outer, controller.signal]);
    const load = async (pageURL: string): Promise<RawPage> => {
      const span = { type: 'delta' as const, entitySet, page: pages.number(pageURL) };
      const response = await this.host.exchange({ method: 'GET', url: pageURL, headers, signal, span });
      if (kept !== undefined && response.status === 410) {
        await response.cancel();
        await this.options.store.clear(this.storeKey());
        throw new DeltaExpiredError(410, 'The service no longer accepts the kept delta link (410 Gone): it was cleared; call changes() again for a full read');
      }
      if (response.status >= 400) throw await toODataError(response);
      // Parsed as reads are: Int64/Decimal exact on v4 services that ignore IEEE754Compatible.
      const body = await readJsonAnswer(response, { parse: guardParser(precision, protocol.version, entityType, 'collection'), error: 'DecodeError' });
      return pageOf(body as Record<string, unknown>, protocol.version === '2.0');
    };
    let current = load(url);
    try {
      for (;;) {
        const page = await current;
        const nextURL = page.next === undefined ? undefined : this.host.links.resolve('next', page.next, url);
        let ahead: Promise<RawPage> | undefined;
        if (nextURL !== undefined && this.options.prefetch !== false) {
          ahead = load(nextURL);
          // Its failure is reported when the caller reaches that page, not as an unhandled rejection before.
          ahead.catch(() => undefined);
        }
        const changes = page.items.map((item) => changeOf(item as Record<string, unknown>, level) as DeltaChange<T>);
        const deltaLink = nextURL === undefined && page.delta !== undefined ? this.host.links.resolve('deltaLink', page.delta, url) : undefined;
        yield { changes, nextLink: nextURL, deltaLink };
        if (nextURL !== undefined) {
          current = ahead ?? load(nextURL);
          url = nextURL;
          continue;
        }
        if (deltaLink !== undefined) await this.options.store.save(this.storeKey(), deltaLink);
        return;
      }
    } finally {
      controller.abort();
    }
  }

  private storeKey(): string {
    return this.key || this.query.toURL();
  }
}
