import type { ActionOptions, ActionResult, FunctionOptions } from '../operations/call.js';
import type { ReadOptions } from '../query/state.js';
import type { EntityQuery, Query } from '../query/query.js';
import type { Expr } from '../query/filter.js';
import type { SearchBuilder, SearchExpr } from '../query/search.js';
import type { StreamOptions } from '../read/stream.js';
import type { Page, PageBatch, StreamItem } from '../read/stream-item.js';
import type { ConditionalRead } from '../write/conditional.js';
import type { CreateOptions, DeleteOptions, UpdateOptions, WriteResult } from '../write/entity-writes.js';
import type { ETagSource } from '../write/etag.js';
import type { TypedFilterBuilder } from './filter.js';
import type {
  CreateInput, KeyArg, NavManyName, NavName, NavOneName, NavTarget, Operation, ParamsArg, PropName, Selected, UpdateInput,
} from './names.js';
import type { EntityTypeSpec, RefusedWrite, WriteKind } from './spec.js';
import type { CheckOrderItem, CheckSelectItem, PathSelected } from './paths.js';
import type { CheckExpandPath, Expanded, ExpandedPath, ExpandMap, TypedExpandOptions } from './expand.js';

/** An action of a typed client: parameters were given with the name; `execute()` sends it. */
export interface TypedActionCall<R> {
  /** Sends the action; a 202 answer is `isAsync` with the status URL in `location`. */
  execute(options?: ActionOptions): Promise<ActionResult<R>>;
}

/** A function of a typed client: parameters were given with the name; `execute()` calls it. */
export interface TypedFunctionCall<R> {
  /** Calls the function and resolves with its decoded value. */
  execute(options?: FunctionOptions): Promise<R>;
}

/** The rows a typed query reads: the selected properties and the expanded navigation properties (narrowed by v2 `select()` paths through them). */
export type TypedRow<E extends EntityTypeSpec, Sel extends string, X> = Selected<E, Sel> & PathSelected<X, Sel>;

/**
 * A collection query of a typed client (the same object as {@link Query} at run time): an entity set
 * or a to-many navigation, typed by the entity type's spec E. `Sel` is the union of selected property
 * names (`never`: all), `X` what `expand()` added to the row type, `W` the writes the entity set refuses
 * (`never`: none; `from()` reads them from the service's `refuses`).
 *
 * @example
 * ```ts
 * // od: TypedODataClient<Service>
 * const rows = await od.from('Products').select('ID', 'Name').expand('Category').top(5).list()
 * rows[0]?.Category?.Name
 * ```
 */
export interface TypedQuery<E extends EntityTypeSpec, Sel extends string = never, X = unknown, W extends WriteKind = never> {
  /** Adds a `$filter` condition (several are joined with `and`). */
  filter(condition: string | Expr | ((f: TypedFilterBuilder<E>) => Expr)): TypedQuery<E, Sel, X, W>;
  /** Adds properties to `$select`; the rows then have only the selected properties (and the expanded ones). */
  select<K extends PropName<E>>(...properties: K[]): TypedQuery<E, Sel | K, X, W>;
  /**
   * OData v2 (`E['odataVersion']` `'2.0'`): properties, and properties through one navigation property
   * (`'to_Customer/CustomerName'`), which narrow that navigation property's value where it is expanded.
   */
  select<P extends string>(...items: (P & CheckSelectItem<E, P>)[]): TypedQuery<E, Sel | P, X, W>;
  /** Expands a navigation property (nested options in v4); the rows gain it, typed by its target as the options read it. */
  expand<N extends NavName<E>, K extends PropName<NavTarget<E, N>> = never, const XP extends ExpandMap<NavTarget<E, N>> = never>(
    navigation: N, nested?: TypedExpandOptions<NavTarget<E, N>, K, XP & ExpandMap<NavTarget<E, N>>>,
  ): TypedQuery<E, Sel, X & Expanded<E, N, K, XP>, W>;
  /** Expands a path of navigation properties (`'Lines/Order'`; v2: v4 takes nested options instead); the rows gain every step of it. */
  expand<P extends `${string}/${string}`>(path: P & CheckExpandPath<E, P>): TypedQuery<E, Sel, X & ExpandedPath<E, P>, W>;
  /** Adds `$orderby` items: `'Price desc'`, `'Name'`, `'Category/Name asc'` (paths as the filter builder takes them). */
  orderBy<P extends string>(...items: (P & CheckOrderItem<E, P>)[]): TypedQuery<E, Sel, X, W>;
  /** `$top` */ top(n: number): TypedQuery<E, Sel, X, W>;
  /** `$skip` */ skip(n: number): TypedQuery<E, Sel, X, W>;
  /** Asks for the total count inline. */ count(): TypedQuery<E, Sel, X, W>;
  /** Free-text search (`$search`; SAP's `search` in v2). */
  search(text: string | SearchExpr | ((s: SearchBuilder) => SearchExpr)): TypedQuery<E, Sel, X, W>;
  /** A custom query option such as `sap-client=100`. */
  param(name: string, value: string | number | boolean): TypedQuery<E, Sel, X, W>;
  /** Addresses one entity by key: the key's value, or an object of the key properties (composite keys). */
  key(value: KeyArg<E>): TypedEntity<E, Sel, X, W>;
  /** Reads every record of every page into an array. */
  list(options?: StreamOptions): Promise<TypedRow<E, Sel, X>[]>;
  /** Streams the records as `{ value }` items (with `{ error }` items for records or pages that failed). */
  stream(options?: StreamOptions): AsyncIterable<StreamItem<TypedRow<E, Sel, X>>>;
  /** The records of `stream()` in arrays, one per run of a body chunk (`{ value: rows[] }`), with the same `{ error }` items. */
  streamBatches(options?: StreamOptions): AsyncIterable<StreamItem<TypedRow<E, Sel, X>[]>>;
  /** The records of `streamBatches()` with a `{ page }` item at the end of each page (its URL, next link, count). */
  pageBatches(options?: StreamOptions): AsyncIterable<PageBatch<TypedRow<E, Sel, X>>>;
  /** Iterates page by page. */
  pages(options?: Omit<StreamOptions, 'prefetch'>): AsyncIterable<Page<TypedRow<E, Sel, X>>>;
  /** GET `/$count`: the number of matching records. */
  countOnly(options?: ReadOptions): Promise<number>;
  /**
   * POSTs a new entity: computed properties (`Core.Computed`, `sap:creatable="false"`) are refused at compile
   * time; so is the call on an entity set whose metadata refuses inserts (see `refuses` of `ServiceSpec`).
   */
  create: 'create' extends W ? RefusedWrite<'create'> : (entity: CreateInput<E>, options?: CreateOptions) => Promise<WriteResult<E['props']>>;
  /** An action bound to the collection, with its parameters. */
  action<N extends keyof E['collectionActions'] & string>(name: N, ...params: ParamsArg<Operation<E['collectionActions'], N>>): TypedActionCall<Operation<E['collectionActions'], N>['returns']>;
  /** A function bound to the collection, with its parameters. */
  function<N extends keyof E['collectionFunctions'] & string>(name: N, ...params: ParamsArg<Operation<E['collectionFunctions'], N>>): TypedFunctionCall<Operation<E['collectionFunctions'], N>['returns']>;
  /** The request URL. */
  toURL(): string;
  /** The same query, untyped (a {@link Query} of these rows), for code that takes a `Query` (sluice's own APIs take this query as it is). */
  readonly untyped: Query<TypedRow<E, Sel, X>>;
}

/**
 * One entity of a typed client (the same object as {@link EntityQuery} at run time): by key, a
 * singleton, or a to-one navigation. `Sel`, `X` and `W` as for {@link TypedQuery}.
 */
export interface TypedEntity<E extends EntityTypeSpec, Sel extends string = never, X = unknown, W extends WriteKind = never> {
  /** Adds properties to `$select`. */
  select<K extends PropName<E>>(...properties: K[]): TypedEntity<E, Sel | K, X, W>;
  /** OData v2: properties, and properties through one navigation property, as for {@link TypedQuery.select}. */
  select<P extends string>(...items: (P & CheckSelectItem<E, P>)[]): TypedEntity<E, Sel | P, X, W>;
  /** Expands a navigation property (nested options in v4), typed as for {@link TypedQuery.expand}. */
  expand<N extends NavName<E>, K extends PropName<NavTarget<E, N>> = never, const XP extends ExpandMap<NavTarget<E, N>> = never>(
    navigation: N, nested?: TypedExpandOptions<NavTarget<E, N>, K, XP & ExpandMap<NavTarget<E, N>>>,
  ): TypedEntity<E, Sel, X & Expanded<E, N, K, XP>, W>;
  /** Expands a path of navigation properties (v2), typed as for {@link TypedQuery.expand}. */
  expand<P extends `${string}/${string}`>(path: P & CheckExpandPath<E, P>): TypedEntity<E, Sel, X & ExpandedPath<E, P>, W>;
  /** A custom query option. */
  param(name: string, value: string | number | boolean): TypedEntity<E, Sel, X, W>;
  /** Follows a to-one navigation property. */
  nav<N extends NavOneName<E>>(property: N): TypedEntity<NavTarget<E, N>>;
  /** Follows a to-many navigation property: a collection query. */
  navMany<N extends NavManyName<E>>(property: N): TypedQuery<NavTarget<E, N>>;
  /** Reads the entity. */
  get(options?: ReadOptions): Promise<TypedRow<E, Sel, X>>;
  /** GET with `If-None-Match`. */
  readIfChanged(etag: ETagSource, options?: ReadOptions): Promise<ConditionalRead<TypedRow<E, Sel, X>>>;
  /**
   * Changes some properties: immutable ones (keys, `Core.Immutable`, `sap:updatable="false"`) are refused at
   * compile time; so is the call on an entity set whose metadata refuses updates (see `refuses` of `ServiceSpec`).
   */
  update: 'update' extends W ? RefusedWrite<'update'> : (changes: UpdateInput<E>, options?: UpdateOptions) => Promise<WriteResult<E['props']>>;
  /** Replaces the whole entity (PUT); refused at compile time as {@link TypedEntity.update} is. */
  replace: 'update' extends W ? RefusedWrite<'update'> : (entity: UpdateInput<E>, options?: UpdateOptions) => Promise<WriteResult<E['props']>>;
  /** Deletes the entity (not on an entity set whose metadata refuses deletes: see `refuses` of `ServiceSpec`). */
  delete: 'delete' extends W ? RefusedWrite<'delete'> : (options?: DeleteOptions) => Promise<void>;
  /** An action bound to this entity, with its parameters. */
  action<N extends keyof E['actions'] & string>(name: N, ...params: ParamsArg<Operation<E['actions'], N>>): TypedActionCall<Operation<E['actions'], N>['returns']>;
  /** A function bound to this entity, with its parameters. */
  function<N extends keyof E['functions'] & string>(name: N, ...params: ParamsArg<Operation<E['functions'], N>>): TypedFunctionCall<Operation<E['functions'], N>['returns']>;
  /** The request URL. */
  toURL(): string;
  /** The same query, untyped (an {@link EntityQuery} of this row), for code that takes an `EntityQuery`. */
  readonly untyped: EntityQuery<TypedRow<E, Sel, X>>;
}
