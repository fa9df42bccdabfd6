import { ConfigError } from '@sluice/core';
import { checkCallOptions } from '../call-options.js';
import type { StreamOptions } from '../read/stream.js';
import type { Page, PageBatch, StreamItem } from '../read/stream-item.js';
import { QueryBase, type QueryHost } from './base.js';
import { initialState, keySegment, type KeyValue, type QueryState, type ReadOptions } from './state.js';
import { Expr, FilterBuilder } from './filter.js';
import { checkIdentifier, checkPath } from './names.js';
import { checkCount, checkOrderBy } from './options.js';
import { toSearch, type SearchBuilder, type SearchExpr } from './search.js';
import { ActionCall, FunctionCall, paramsOf } from '../operations/call.js';
import { readIfChanged, type ConditionalRead } from '../write/conditional.js';
import {
  checkWritable, createEntity, deleteEntity, updateEntity, type CreateOptions, type DeleteOptions, type UpdateOptions, type WriteResult,
  type WriteTarget,
} from '../write/entity-writes.js';
import type { ETagSource } from '../write/etag.js';

export { encodeOptionValue, type KeyValue, type ReadOptions } from './state.js';

/**
 * An immutable OData query on a collection (an entity set, or a to-many navigation such as
 * `Customers(1)/Orders`): every method returns a new query, so a base query can be shared and refined.
 * Build with `filter`, `select`, `expand`, `orderBy`, `top`, `skip`, `count`, `search`, `param`;
 * `key()` addresses one entity (an {@link EntityQuery}); run with `list`, `stream`, `streamBatches`,
 * `pages` or `countOnly`. `toURL()` shows the URL.
 *
 * @example
 * ```ts
 * const q = od.from<Product>('Products').filter((f) => f.gt('Price', 10)).select('ID', 'Name').top(5)
 * q.toURL()  // https://host/svc/Products?$filter=Price%20gt%2010&$select=ID,Name&$top=5
 * for await (const item of q.stream()) if ('value' in item) console.log(item.value.Name)
 * ```
 */
export class Query<T = Record<string, unknown>> extends QueryBase<T> {
  /** @internal */
  static start<T>(host: QueryHost, set: string): Query<T> {
    checkIdentifier(set, 'entity set');
    return new Query<T>(host, initialState(set));
  }

  /**
   * Adds a `$filter` condition (several calls are joined with `and`): a builder callback, an expression,
   * or a raw string you vouch for.
   */
  filter(condition: string | Expr | ((f: FilterBuilder<T>) => Expr)): this {
    const expr = typeof condition === 'function' ? condition(new FilterBuilder<T>()) : condition;
    if (typeof expr === 'string' ? expr.trim() === '' : !(expr instanceof Expr)) throw new ConfigError('filter', 'must be a non-empty string, an expression or a builder callback');
    return this.with({ filters: [...this.state.filters, expr] });
  }

  /** Adds `$orderby` items such as `'Price desc'`, `'Name'`. */
  orderBy(...items: string[]): this {
    return this.with({ orderBy: [...this.state.orderBy, ...items.map((i) => checkOrderBy(i))] });
  }

  /** `$top`: at most n records in total (the server may still page them). */
  top(n: number): this {
    return this.with({ top: checkCount(n, 'top') });
  }

  /** `$skip`: skip the first n records. Prefer server paging (`stream`, `pages`) to manual skipping. */
  skip(n: number): this {
    return this.with({ skip: checkCount(n, 'skip') });
  }

  /** Asks for the total count inline (`$count=true` in v4, `$inlinecount=allpages` in v2). */
  count(): this {
    return this.with({ count: true });
  }

  /**
   * Free-text search. A string is searched as one phrase; a builder callback writes an expression with
   * AND, OR, NOT, phrases and grouping (see {@link SearchBuilder}). v4 sends `$search`; v2 has none, so
   * SAP Gateway's `search` option.
   */
  search(text: string | SearchExpr | ((s: SearchBuilder) => SearchExpr)): this {
    return this.with({ search: toSearch(text) });
  }

  /** Addresses one entity by key: `key(1)`, `key('A')`, `key({ OrderID: 1, ItemNo: 'A' })`. */
  key(value: KeyValue): EntityQuery<T> {
    return new EntityQuery<T>(this.host, { ...this.state, segments: [...this.state.segments, keySegment(value)] });
  }

  /**
   * Reads every record of every page into an array. Rejects with the first error that loses data
   * (a record that fails to decode, a page that fails for good); pages retried successfully are fine.
   */
  async list(options: StreamOptions = {}): Promise<T[]> {
    checkCallOptions('list()', this.where(), options, 'stream');
    const out: T[] = [];
    for await (const item of this.stream(options)) {
      if (item.error === undefined) out.push(item.value);
      else if (!(item.error as { willRetry?: boolean | undefined }).willRetry) throw item.error;
    }
    return out;
  }

  /**
   * Streams the records of every page as `{ value }` items, with `{ error }` items for records or pages
   * that failed (see StreamItem); breaking out of the loop or aborting stops all network work.
   */
  stream(options: StreamOptions = {}): AsyncIterable<StreamItem<T>> {
    checkCallOptions('stream()', this.where(), options, 'stream');
    return {
      [Symbol.asyncIterator]: () => this.host.openStream((signal) => this.prepared(signal), options) as AsyncIterator<StreamItem<T>>,
    };
  }

  /**
   * The records of `stream()` handed out in arrays: `{ value: T[] }` holds the records of one run of
   * a body chunk (up to a few hundred, in order, as soon as that chunk is in), `{ error }` items are the
   * same as `stream()`'s (a record that fails to decode, a page tried again, the terminal failure, always
   * last). Same options, prefetch, retries, events and cancellation (`signal`, or breaking out of the
   * loop) as `stream()`, with one item per run instead of per record: the loop costs less per record.
   * Not to be confused with OData `$batch` (`od.batch()`).
   *
   * @example
   * ```ts
   * for await (const batch of od.from<Product>('Products').streamBatches()) {
   *   if (batch.error) { console.warn(batch.error.message); continue }
   *   for (const product of batch.value) handle(product)
   * }
   * ```
   */
  streamBatches(options: StreamOptions = {}): AsyncIterable<StreamItem<T[]>> {
    checkCallOptions('streamBatches()', this.where(), options, 'stream');
    return {
      [Symbol.asyncIterator]: () => this.host.openStream((signal) => this.prepared(signal), options, true) as AsyncIterator<StreamItem<T[]>>,
    };
  }

  /**
   * The records of `streamBatches()` with the end of each page: `{ value: T[] }` items hold the records of
   * one run of a body chunk as soon as it is in, a `{ page }` item ({@link PageEnd}: the page's URL, next
   * link and count) follows the last records of each page, `{ error }` items are `stream()`'s. For a caller
   * that writes records as they arrive and commits at each page's end (what `pages()` gives, without holding
   * a whole page of records): a page whose body broke is resumed after the records already handed out. Same
   * options, prefetch and cancellation as `stream()`.
   *
   * @example
   * ```ts
   * for await (const item of od.from<Product>('Products').pageBatches()) {
   *   if (item.error) throw item.error
   *   if (item.page) console.log(`page done, next: ${item.page.nextLink ?? 'none'}`)
   *   else for (const product of item.value) handle(product)
   * }
   * ```
   */
  pageBatches(options: StreamOptions = {}): AsyncIterable<PageBatch<T>> {
    checkCallOptions('pageBatches()', this.where(), options, 'stream');
    return {
      [Symbol.asyncIterator]: () => this.host.openStream((signal) => this.prepared(signal), options, 'pages') as AsyncIterator<PageBatch<T>>,
    };
  }

  /** Iterates page by page; exactly one page is held at a time (no prefetch). */
  pages(options: Omit<StreamOptions, 'prefetch'> = {}): AsyncIterable<Page<T>> {
    checkCallOptions('pages()', this.where(), options, 'pages');
    return {
      [Symbol.asyncIterator]: () => this.pageItems(options),
    };
  }

  private async *pageItems(options: Omit<StreamOptions, 'prefetch'>): AsyncGenerator<Page<T>> {
    const { url, entityType } = await this.prepared(options.signal);
    yield* this.host.runPages(url, entityType, options) as AsyncGenerator<Page<T>>;
  }

  /**
   * POSTs a new entity to this entity set or navigation collection (deep insert: related entities inline
   * under their navigation property). Values are encoded by their EDM type when `$metadata` is loaded (a
   * wrong type is a ConfigError before anything is sent). Resolves with the created entity (with its
   * `@odata.etag`) unless `prefer: 'minimal'`, and its `location` either way.
   */
  create(entity: Partial<T> & Record<string, unknown>, options: CreateOptions = {}): Promise<WriteResult<T>> {
    checkWritable(this.state, 'create()');
    checkCallOptions('create()', this.where(), options, 'create');
    return createEntity<T>({ host: this.host, render: (p) => this.render(p) }, entity, options);
  }

  /** An action bound to this collection (v4), such as `od.from('Orders').action('Demo.CloseAll')`. */
  action<R = unknown>(name: string, params?: Readonly<Record<string, unknown>>): ActionCall<R> {
    checkWritable(this.state, 'A bound action');
    return new ActionCall<R>(this.host, name, { render: (p) => this.render(p), collection: true }, paramsOf(params));
  }

  /** A function bound to this collection (v4), such as `od.from('Orders').function('Demo.TotalAmount')`. */
  function<R = unknown>(name: string, params?: Readonly<Record<string, unknown>>): FunctionCall<R> {
    checkWritable(this.state, 'A bound function');
    return new FunctionCall<R>(this.host, name, { render: (p) => this.render(p), collection: true }, paramsOf(params));
  }

  /** @internal The client and state of this query (partition planning derives its sample reads from them). */
  parts(): { host: QueryHost; state: QueryState } {
    return { host: this.host, state: this.state };
  }

  /** GET `/<EntitySet>/$count` (with `$filter`/`$search` if set): the number of matching records. */
  async countOnly(options: ReadOptions = {}): Promise<number> {
    checkCallOptions('countOnly()', this.where(), options, 'read');
    const { url } = await this.prepared(options.signal, true);
    return this.host.runCount(url, options);
  }
}

/**
 * An immutable query on one entity: an entity addressed by key (`od.from('Products').key(1)`), a
 * singleton (`od.singleton('Me')`) or a to-one navigation (`.nav('Category')`). It has only what applies
 * to one entity: `select`, `expand`, `param`, navigation, `toURL()` and `get()`; collection options and
 * runs (`filter`, `top`, `list`, `stream`, `pages`, `countOnly`) do not type-check on it.
 *
 * @example
 * ```ts
 * const product = await od.from<Product>('Products').key(7).select('ID', 'Name').get()
 * const category = await od.from('Products').key(7).nav('Category').get()
 * const orders = await od.from('Customers').key(1).navMany<Order>('Orders').top(10).list()
 * ```
 */
export class EntityQuery<T = Record<string, unknown>> extends QueryBase<T> {
  /** @internal */
  static singleton<T>(host: QueryHost, name: string): EntityQuery<T> {
    checkIdentifier(name, 'singleton');
    return new EntityQuery<T>(host, initialState(name));
  }

  /** Follows a single-valued navigation property (`Products(1)/Category`); U is the target's type. */
  nav<U = Record<string, unknown>>(property: string): EntityQuery<U> {
    checkPath(property, 'nav');
    return new EntityQuery<U>(this.host, this.navState(property));
  }

  /** Follows a collection-valued navigation property (`Customers(1)/Orders`): a collection query. */
  navMany<U = Record<string, unknown>>(property: string): Query<U> {
    checkPath(property, 'navMany');
    return new Query<U>(this.host, this.navState(property));
  }

  /** Reads the entity; rejects with ODataError on 404 and other error statuses. */
  async get(options: ReadOptions = {}): Promise<T> {
    checkCallOptions('get()', this.where(), options, 'read');
    const { url, entityType } = await this.prepared(options.signal);
    return (await this.host.runGet(url, entityType, options)) as T;
  }

  /**
   * GET with `If-None-Match`: `{ modified: false }` when the entity still has `etag` (a `304`, no body),
   * else `{ modified: true, value }`.
   */
  readIfChanged(etag: ETagSource, options: ReadOptions = {}): Promise<ConditionalRead<T>> {
    checkCallOptions('readIfChanged()', this.where(), options, 'read');
    return readIfChanged<T>(this.target(), etag, options);
  }

  /**
   * Changes some properties (v4 PATCH, v2 MERGE). With `{ etag }` (a string, `'*'`, or the entity read
   * earlier), or an `@odata.etag` on `changes`, sends `If-Match`: a changed entity is a
   * PreconditionFailedError, a service demanding it a PreconditionRequiredError.
   */
  update(changes: Partial<T> & Record<string, unknown>, options: UpdateOptions = {}): Promise<WriteResult<T>> {
    checkWritable(this.state, 'update()');
    checkCallOptions('update()', this.where(), options, 'update');
    return updateEntity<T>(this.target(), changes, options, false);
  }

  /** Replaces the whole entity (PUT): properties not given are reset to their defaults. `etag` as for update(). */
  replace(entity: Partial<T> & Record<string, unknown>, options: UpdateOptions = {}): Promise<WriteResult<T>> {
    checkWritable(this.state, 'replace()');
    checkCallOptions('replace()', this.where(), options, 'update');
    return updateEntity<T>(this.target(), entity, options, true);
  }

  /** Deletes the entity; `etag` as for update(). */
  delete(options: DeleteOptions = {}): Promise<void> {
    checkWritable(this.state, 'delete()');
    checkCallOptions('delete()', this.where(), options, 'delete');
    return deleteEntity(this.target(), options);
  }

  /** An action bound to this entity (v4), such as `od.from('Orders').key(7).action('Demo.Approve')`. */
  action<R = unknown>(name: string, params?: Readonly<Record<string, unknown>>): ActionCall<R> {
    checkWritable(this.state, 'A bound action');
    return new ActionCall<R>(this.host, name, { render: (p) => this.render(p), collection: false }, paramsOf(params));
  }

  /** A function bound to this entity (v4). */
  function<R = unknown>(name: string, params?: Readonly<Record<string, unknown>>): FunctionCall<R> {
    checkWritable(this.state, 'A bound function');
    return new FunctionCall<R>(this.host, name, { render: (p) => this.render(p), collection: false }, paramsOf(params));
  }

  private target(): WriteTarget {
    return { host: this.host, render: (p) => this.render(p) };
  }

  private navState(property: string): QueryState {
    // Options chosen for this entity do not carry over to the navigation target.
    return { ...initialState(this.state.set), segments: [...this.state.segments, { kind: 'nav', name: property }], params: this.state.params };
  }
}

