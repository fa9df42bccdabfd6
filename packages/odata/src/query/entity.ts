import { checkCallOptions } from '../call-options.js';
import { initialState, QueryBase, type QueryHost, type QueryState, type ReadOptions } from './base.js';
import { checkIdentifier, checkPath } from './names.js';
import { Query } from './query.js';
import { ActionCall, FunctionCall, paramsOf } from '../operations/call.js';
import { readIfChanged, type ConditionalRead } from '../write/conditional.js';
import {
  checkWritable, deleteEntity, updateEntity, type DeleteOptions, type UpdateOptions, type WriteResult, type WriteTarget,
} from '../write/entity-writes.js';
import type { ETagSource } from '../write/etag.js';

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

