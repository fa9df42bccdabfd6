import { ConfigError } from '@sluice/core';
import { checkCallOptions } from '../call-options.js';
import type { StreamOptions } from '../read/stream.js';
import type { Page, StreamItem } from '../read/stream-item.js';
import { initialState, keySegment, QueryBase, type KeyValue, type QueryHost, type QueryState, type ReadOptions } from './base.js';
import { EntityQuery } from './entity.js';
import { Expr, FilterBuilder } from './filter.js';
import { checkIdentifier } from './names.js';
import { checkCount, checkOrderBy } from './options.js';
import { toSearch, type SearchBuilder, type SearchExpr } from './search.js';
import { ActionCall, FunctionCall, paramsOf } from '../operations/call.js';
import { checkWritable, createEntity, type CreateOptions, type WriteResult } from '../write/entity-writes.js';

export { encodeOptionValue, type KeyValue, type ReadOptions } from './base.js';

/**
 * An immutable OData query on a collection (an entity set, or a to-many navigation such as
 * `Customers(1)/Orders`): every method returns a new query, so a base query can be shared and refined.
 * Build with `filter`, `select`, `expand`, `orderBy`, `top`, `skip`, `count`, `search`, `param`;
 * `key()` addresses one entity (an {@link EntityQuery}); run with `list`, `stream`, `pages` or
 * `countOnly`. `toURL()` shows the URL.
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
      else if (!(item.error as { willRetry?: boolean }).willRetry) throw item.error;
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
