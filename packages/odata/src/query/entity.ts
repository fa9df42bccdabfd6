import { initialState, QueryBase, type QueryHost, type QueryState, type ReadOptions } from './base.js';
import { checkIdentifier, checkPath } from './names.js';
import { Query } from './query.js';

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
    const { url, entityType } = await this.prepared(options.signal);
    return (await this.host.runGet(url, entityType, options)) as T;
  }

  private navState(property: string): QueryState {
    // Options chosen for this entity do not carry over to the navigation target.
    return { ...initialState(this.state.set), segments: [...this.state.segments, { kind: 'nav', name: property }], params: this.state.params };
  }
}

