// DeltaSync (SPEC 9): a first full read with `Prefer: odata.track-changes`, then reads of the kept delta
// link that give only what changed: entities, removals, links and deleted links.
import { checkOptionKeys, ConfigError, SluiceError } from '@sluice/core';
import type { ODataClient } from '../client.js';
import type { HasUntyped } from '../untyped-view.js';
import type { Query } from '../query/query.js';
import type { PageBatch } from '../read/stream-item.js';
import { ODataError, PageError } from '../errors.js';
import { toODataError } from '../read/error-body.js';
import { withServiceParams } from '../read/service-params.js';
import { entitySetOf, PageCounter } from '../telemetry.js';
import { guardParser, readJsonAnswer } from '../read/json-answer.js';
import type { WriteHost } from '../write/host.js';
import { changeOf, str, topLevel, type DeltaChange } from './items.js';
import type { DeltaStore } from './store.js';

export type { DeltaChange, DeltaRelated, DeltaRelatedChange } from './items.js';

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

/** The end of a page of {@link DeltaSync.pageBatches}: every change of the page was handed out before it. */
export interface DeltaPageEnd {
  /** The next page of this read (resolved); undefined on the last page. */
  readonly nextLink: string | undefined;
  /** On the last page: the delta link for the next run (resolved); undefined when the service sent none. */
  readonly deltaLink: string | undefined;
}

/**
 * One item of {@link DeltaSync.pageBatches}: changes of a page in the order sent (`changes`, those of one run of
 * a body chunk), or the end of a page (`end`), which follows the page's last changes.
 */
export type DeltaBatch<T> =
  | { readonly changes: readonly DeltaChange<T>[]; readonly end?: undefined }
  | { readonly end: DeltaPageEnd; readonly changes?: undefined };

/** One page of {@link DeltaSync.pages}: its changes and the link to resume from after it. */
export interface DeltaPage<T> {
  readonly changes: readonly DeltaChange<T>[];
  /** The next page of this read (resolved); undefined on the last page. */
  readonly nextLink: string | undefined;
  /** On the last page: the delta link for the next run (resolved); undefined when the service sent none. */
  readonly deltaLink: string | undefined;
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
  private readonly client: ODataClient;
  private readonly query: Query<T>;
  /** The `OData-MaxVersion` configured on the client's headers (such as `'4.01'`), sent instead of the default `4.0`. */
  private readonly maxVersion: string | undefined;
  /**
   * @param client - the client the query was made with (`od`; a typed client as it is)
   * @param query - the entity set to keep in step (`od.from('Orders')`, with `select`/`filter` as the service allows; a typed query as it is)
   */
  constructor(client: HasUntyped<ODataClient>, query: HasUntyped<Query<T>>, private readonly options: DeltaSyncOptions) {
    this.host = client.untyped;
    this.client = client.untyped;
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
    const kept = await this.keptLink();
    let url = kept ?? start;
    const headers: Record<string, string> = { ...protocol.requestHeaders(this.host.writeSettings().largeNumbers) };
    if (kept === undefined) headers['prefer'] = 'odata.track-changes';
    // A client configured for 4.01 payloads (`http: { headers: { 'OData-MaxVersion': '4.01' } }`) gets them:
    // 4.01 removals (`@removed`, by `@id` or key), `@context`, nested `@delta`. Both forms are read.
    if (protocol.version === '4.0' && this.maxVersion !== undefined) headers['odata-maxversion'] = this.maxVersion;
    const { precision } = this.host.writeSettings();
    const level = topLevel(protocol, { ...this.host.writeSettings(), metadata: this.host.loadedMetadata() }, this.host.serviceURL, start, entityType);
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
        const nextURL = page.next === undefined ? undefined : withServiceParams(this.host.links.resolve('next', page.next, url), this.host.serviceParams);
        let ahead: Promise<RawPage> | undefined;
        if (nextURL !== undefined && this.options.prefetch !== false) {
          ahead = load(nextURL);
          // Its failure is reported when the caller reaches that page, not as an unhandled rejection before.
          ahead.catch(() => undefined);
        }
        const changes = page.items.map((item) => changeOf(item as Record<string, unknown>, level) as DeltaChange<T>);
        const deltaLink = nextURL === undefined && page.delta !== undefined ? withServiceParams(this.host.links.resolve('deltaLink', page.delta, url), this.host.serviceParams) : undefined;
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

  /**
   * The read of {@link pages} as its bytes arrive: the changes of each page in batches (one per run of a body
   * chunk, in the order sent), each page followed by its end with the link to resume from (`nextLink`, or
   * `deltaLink` on the last page), so a caller that commits at each page's end never holds a whole page of
   * changes. Entities are decoded as `pages()` decodes them. A page whose body breaks ends the read with its
   * PageError (it is not read again: a delta page read twice need not be the same); an item that cannot be
   * read ends it with its RecordDecodeError; a refused kept link is DeltaExpiredError, as in `pages()`. The delta
   * link is saved once the last page's end was taken.
   *
   * @example
   * ```ts
   * for await (const batch of sync.pageBatches()) {
   *   if (batch.end) console.log(`page done; resume from ${batch.end.nextLink ?? batch.end.deltaLink}`)
   *   else for (const change of batch.changes) console.log(change.kind)
   * }
   * ```
   */
  async *pageBatches(): AsyncGenerator<DeltaBatch<T>> {
    const signal = this.options.signal;
    const protocol = await this.host.protocolReady(signal);
    const { url: start, entityType } = this.query.render(protocol);
    const kept = await this.keptLink();
    const level = topLevel(protocol, { ...this.host.writeSettings(), metadata: this.host.loadedMetadata() }, this.host.serviceURL, start, entityType);
    const entitySet = entitySetOf(this.host.serviceURL, start);
    const maxVersion = protocol.version === '4.0' ? this.maxVersion : undefined;
    const read = this.client.openStream(
      () => Promise.resolve({ url: kept ?? start, entityType }),
      { pageRetries: 0, ...(kept === undefined ? { headers: { prefer: 'odata.track-changes' } } : {}), ...(signal === undefined ? {} : { signal }), ...(this.options.prefetch === false ? { prefetch: false } : {}) },
      'pages',
      (ctx) => ({
        ...ctx,
        item: (raw) => changeOf(raw as Record<string, unknown>, level),
        headers: maxVersion === undefined ? ctx.headers : { ...ctx.headers, 'odata-maxversion': maxVersion },
        span: { base: { type: 'delta', entitySet }, pages: ctx.span?.pages },
      }),
    ) as AsyncIterator<PageBatch<DeltaChange<T>>>;
    try {
      for (let item = await read.next(); !item.done; item = await read.next()) {
        const { value, error, page } = item.value;
        if (error !== undefined) {
          const cause = error instanceof PageError ? error.cause : undefined;
          if (kept !== undefined && cause instanceof ODataError && cause.status === 410) {
            await this.options.store.clear(this.storeKey());
            throw new DeltaExpiredError(410, 'The service no longer accepts the kept delta link (410 Gone): it was cleared; call changes() again for a full read');
          }
          throw error;
        }
        if (page === undefined) {
          yield { changes: value };
          continue;
        }
        // The page end's links are those the read follows (resolved, service params kept); resolving them again
        // refuses a link the link policy refuses, as the stream would.
        const nextLink = page.nextLink === undefined ? undefined : this.host.links.resolve('next', page.nextLink, page.url);
        const deltaLink = nextLink === undefined && page.deltaLink !== undefined ? withServiceParams(this.host.links.resolve('deltaLink', page.deltaLink, page.url), this.host.serviceParams) : undefined;
        yield { end: { nextLink, deltaLink } };
        if (nextLink === undefined) {
          if (deltaLink !== undefined) await this.options.store.save(this.storeKey(), deltaLink);
          return;
        }
      }
    } finally {
      await read.return?.();
    }
  }

  /** The store's link with the service URL's own query options kept (a link kept by an older version may lack them). */
  private async keptLink(): Promise<string | undefined> {
    const kept = await this.options.store.load(this.storeKey());
    return kept === undefined ? undefined : withServiceParams(kept, this.host.serviceParams);
  }

  private storeKey(): string {
    return this.key || this.query.toURL();
  }
}
