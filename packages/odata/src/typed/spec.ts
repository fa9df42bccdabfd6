/**
 * The type-level description of an OData service that a typed client is checked against: what
 * `sluice generate` emits (or what you write by hand). Types only: nothing here exists at run time.
 *
 * Cost rules (services with thousands of types must stay cheap for `tsc`): every spec is a plain
 * interface; a navigation property names its target spec by reference (an interface name, resolved
 * lazily), never by a mapped or conditional type; maps are object types keyed by the service's own
 * names; "no such thing" is {@link EmptyMap} (`{}`) for a map and `never` for a union of names.
 *
 * @example
 * ```ts
 * import type { EmptyMap, EntityTypeSpec, ServiceSpec } from '@sluice/odata'
 *
 * // The entity as read: structural properties only, `| null` where Nullable.
 * interface Category { ID: number; Name: string }
 * interface Product { ID: number; Name: string; Description: string | null; Price: string; Created: string }
 *
 * interface CategorySpec {
 *   props: Category
 *   key: { ID: number }
 *   edm: { ID: 'Edm.Int32'; Name: 'Edm.String' }
 *   nav: { Products: { target: ProductSpec; many: true } }
 *   computed: never
 *   immutable: 'ID'
 *   actions: EmptyMap
 *   functions: EmptyMap
 *   collectionActions: EmptyMap
 *   collectionFunctions: EmptyMap
 * }
 * interface ProductSpec {
 *   props: Product
 *   key: { ID: number }
 *   edm: { ID: 'Edm.Int32'; Name: 'Edm.String'; Description: 'Edm.String'; Price: 'Edm.Decimal'; Created: 'Edm.DateTimeOffset' }
 *   nav: { Category: { target: CategorySpec; many: false } }
 *   computed: 'Created'
 *   immutable: 'ID' | 'Created'
 *   actions: { 'Demo.Discount': { params: { Percent: number }; returns: Product } }
 *   functions: EmptyMap
 *   collectionActions: EmptyMap
 *   collectionFunctions: { 'Demo.MostExpensive': { params: EmptyMap; returns: Product } }
 * }
 * interface Demo {
 *   entitySets: { Products: ProductSpec; Categories: CategorySpec }
 *   singletons: EmptyMap
 *   actions: { ResetData: { params: EmptyMap; returns: void } }
 *   functions: { CountProducts: { params: { MinPrice?: string | null }; returns: string } }
 * }
 * // A spec satisfies the contract structurally; these checks are optional (codegen may emit them).
 * const ok: [Demo extends ServiceSpec ? true : false, ProductSpec extends EntityTypeSpec ? true : false] = [true, true]
 * ```
 *
 * @packageDocumentation
 */

/** An empty map in a spec (no navigation, no operations, no parameters): `{}`, spelled so that linters accept it. */
export type EmptyMap = Record<never, never>;

/**
 * An operation (action, function, or v2 function import) as the typed client calls it.
 *
 * - `params`: parameter name to the value type the client accepts (encoded by the EDM type when the
 *   model is known); optional (`?:`) for `Nullable` parameters the caller may leave out. `{}` when none.
 *   A bound operation's binding parameter is not listed.
 * - `returns`: the decoded result (an entity's `props` type, `X[]` for a collection, a primitive as the
 *   decoder gives it); `void` when the operation returns nothing.
 */
export interface OperationSpec {
  params: object;
  returns: unknown;
}

/**
 * A navigation property: the target entity type's spec (by reference: name the generated interface)
 * and whether it leads to a collection. Expanded, a to-many navigation reads as `target['props'][]`, a
 * to-one as `target['props'] | null`.
 */
export interface NavSpec {
  target: EntityTypeSpec;
  many: boolean;
}

/**
 * One entity type (or the type of a singleton). Every member is required; an empty map is `{}`, an
 * empty union of names `never`.
 */
export interface EntityTypeSpec {
  /**
   * The structural properties as the client reads them: name to decoded value type, `| null` where
   * `Nullable` (the EDM-to-JavaScript table of `@sluice/odata` says which JavaScript type each EDM type
   * reads as; Int64 and Decimal are `string` under the default `largeNumbers: 'string'`). Complex
   * properties are their complex type's interface; collections are arrays. No navigation properties.
   * Properties inherited from a base type are included.
   */
  props: object;
  /** The key properties: name to type (a subset of `props`, never null). */
  key: object;
  /**
   * The EDM type of each structural property (`{ Name: 'Edm.String'; Price: 'Edm.Decimal' }`; a complex
   * or enum type by its qualified name, a collection as `'Collection(Edm.String)'`). The filter builder
   * offers string functions only on `'Edm.String'` properties, date parts only on date and time types,
   * arithmetic only on numeric types.
   */
  edm: object;
  /** Navigation property name to {@link NavSpec}: `{ Category: { target: CategorySpec; many: false } }`. */
  nav: object;
  /**
   * Names of the properties `create()` refuses: `Core.Computed`, v2 `sap:creatable="false"`. `never`
   * when none.
   */
  computed: string;
  /**
   * Names of the properties `update()` refuses: the key properties, `Core.Computed`, `Core.Immutable`,
   * v2 `sap:updatable="false"`. `never` when none.
   */
  immutable: string;
  /** Actions bound to one entity, by the name the client passes (namespace-qualified: `'Demo.Approve'`). */
  actions: object;
  /** Functions bound to one entity, by qualified name. */
  functions: object;
  /** Actions bound to the collection (the entity set), by qualified name. */
  collectionActions: object;
  /** Functions bound to the collection, by qualified name. */
  collectionFunctions: object;
  /**
   * `'2.0'` when the service speaks OData v2 (what `sluice generate` writes for a v2 document): `select()` then
   * also takes properties through one navigation property (`'to_Customer/CustomerName'`), as v2's `$select`
   * does. Absent (or `'4.0'`): property names only (v4 selects through navigation with nested `expand` options).
   */
  odataVersion?: '2.0' | '4.0' | undefined;
}

/**
 * A whole service: what `createODataClient<Service>()` is typed by.
 *
 * - `entitySets`: entity set name to its entity type's spec (several sets may share one spec).
 * - `singletons`: singleton name to its type's spec (v4).
 * - `actions`: unbound actions by import name; v2 function imports whose `m:HttpMethod` is not GET.
 * - `functions`: unbound functions by import name; v2 function imports called with GET (the default).
 *
 * - `refuses` (optional): entity set or singleton name to the writes its metadata refuses, a union of
 *   {@link WriteKind} (`'create' | 'delete'`): v4 `Capabilities.InsertRestrictions/Insertable`,
 *   `UpdateRestrictions/Updatable`, `DeleteRestrictions/Deletable` false, v2 `sap:creatable`,
 *   `sap:updatable`, `sap:deletable` false on the entity set. On such a set the typed client's `create()`,
 *   `update()`/`replace()` or `delete()` do not compile. Sets it does not list refuse nothing.
 *
 * Each maps names to {@link EntityTypeSpec} or {@link OperationSpec}; `{}` when there are none.
 */
export interface ServiceSpec {
  entitySets: object;
  singletons: object;
  actions: object;
  functions: object;
  refuses?: object | undefined;
}

/** A write an entity set or singleton may refuse: `create()` (POST), `update()` and `replace()` (PATCH, PUT), `delete()`. */
export type WriteKind = 'create' | 'update' | 'delete';

/**
 * What a typed query or entity has in place of a write method its entity set refuses (see `refuses` of
 * {@link ServiceSpec}): not callable, so a call does not compile ("Type 'RefusedWrite<"delete">' has no call
 * signatures"). At run time the method is there: untyped, the request is sent and the service refuses it.
 */
export interface RefusedWrite<W extends WriteKind> {
  /** The write the entity set's metadata refuses. */
  readonly refusedBySet: W;
}
