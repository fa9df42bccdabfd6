import type { TypedValue } from '../query/literal.js';
import type { EntityTypeSpec, OperationSpec, WriteKind } from './spec.js';

// Type helpers of the typed client: all shallow (one mapped type over one entity's members at most), so
// a service with thousands of entity types costs only the types a program actually touches.

/** The structural property names of an entity type. */
export type PropName<E extends EntityTypeSpec> = keyof E['props'] & string;

/** The names of the properties whose EDM type is one of `Edm` (as `E['edm']` declares them). */
export type PropOfEdm<E extends EntityTypeSpec, Edm extends string> =
  { [K in keyof E['edm']]: E['edm'][K] extends Edm ? K : never }[keyof E['edm']] & PropName<E>;

/** EDM types the filter builder treats as numbers (arithmetic, `round`, `floor`, `ceiling`). */
export type NumericEdm = 'Edm.Byte' | 'Edm.SByte' | 'Edm.Int16' | 'Edm.Int32' | 'Edm.Int64' | 'Edm.Decimal' | 'Edm.Double' | 'Edm.Single';
/** EDM types with a date part (`year`, `month`, `day`). */
export type DateEdm = 'Edm.Date' | 'Edm.DateTimeOffset' | 'Edm.DateTime';
/** EDM types with a time part (`hour`, `minute`, `second`). */
export type TimeEdm = 'Edm.TimeOfDay' | 'Edm.DateTimeOffset' | 'Edm.DateTime' | 'Edm.Time';

/** Values a property of EDM type `Edm` also takes in a filter besides its read type: a `Date` for dates, numbers for Int64/Decimal. */
export type ExtraFilterValue<Edm> = Edm extends DateEdm ? Date : Edm extends 'Edm.Int64' | 'Edm.Decimal' ? number | bigint : never;

/** What a filter compares property `K` with: its read type (with `null` where nullable), a typed literal, a `Date` for dates. */
export type FilterValue<E extends EntityTypeSpec, K extends PropName<E>> =
  | E['props'][K & keyof E['props']]
  | TypedValue
  | ExtraFilterValue<K extends keyof E['edm'] ? E['edm'][K] : never>;

/** Navigation property names of an entity type. */
export type NavName<E extends EntityTypeSpec> = keyof E['nav'] & string;

/** Navigation property names that lead to one entity (`many: false`). */
export type NavOneName<E extends EntityTypeSpec> = { [N in keyof E['nav']]: E['nav'][N] extends { many: false } ? N : never }[keyof E['nav']] & string;

/** Navigation property names that lead to a collection (`many: true`). */
export type NavManyName<E extends EntityTypeSpec> = { [N in keyof E['nav']]: E['nav'][N] extends { many: true } ? N : never }[keyof E['nav']] & string;

/** A property of a to-one navigation target, as a filter or `$orderby` path: `'Category/Name'` (one level). */
export type NavPath<E extends EntityTypeSpec> = { [N in NavOneName<E>]: `${N}/${PropName<NavTarget<E, N>>}` }[NavOneName<E>];

/** What a filter comparison or `orderBy` takes: a property name, or a property through a to-one navigation. */
export type FilterPath<E extends EntityTypeSpec> = PropName<E> | NavPath<E>;

/** The target entity type of navigation property `N`. */
export type NavTarget<E extends EntityTypeSpec, N extends NavName<E>> = E['nav'][N] extends { target: infer T extends EntityTypeSpec } ? T : never;

/** The spec of entry `N` of a map of entity types (entity sets, singletons). */
export type SpecOf<M, N extends keyof M> = M[N] extends infer T extends EntityTypeSpec ? T : never;

/** How an expanded navigation reads: an array for to-many, the entity or null for to-one. */
export type NavValue<E extends EntityTypeSpec, N extends NavName<E>, Row> = E['nav'][N] extends { many: true } ? Row[] : Row | null;

/** A row as selected: every property while nothing is selected, else only the selected ones. */
export type Selected<E extends EntityTypeSpec, Sel extends string> = [Sel] extends [never] ? E['props'] : Pick<E['props'], Sel & keyof E['props']>;

/** An `$orderby` item: a property name, optionally with ` asc` or ` desc`. */
export type OrderItem<E extends EntityTypeSpec> = FilterPath<E> | `${FilterPath<E>} ${'asc' | 'desc'}`;

/** A key value as `key()` takes it: `{ name: value }` (any key), or the bare value for a single-property key. */
export type KeyArg<E extends EntityTypeSpec> = KeyObject<E['key']> | SingleKey<E['key']>;
/** A key as an object of its properties. */
export type KeyObject<K> = { readonly [P in keyof K]: K[P] | TypedValue };
/** The value of a single-property key (`never` for a composite key). */
export type SingleKey<K> = { [P in keyof K]-?: [Exclude<keyof K, P>] extends [never] ? K[P] | TypedValue : never }[keyof K];

/** What `create()` takes: the properties that are not computed (all optional: the service applies defaults), and deep inserts. */
export type CreateInput<E extends EntityTypeSpec> =
  & Partial<Omit<E['props'], E['computed']>>
  & { [N in keyof E['nav']]?: E['nav'][N] extends { many: true; target: infer T extends EntityTypeSpec } ? CreateInput<T>[] : E['nav'][N] extends { target: infer T extends EntityTypeSpec } ? CreateInput<T> : never };

/** What `update()` takes: some of the properties that are not immutable (keys, computed, `sap:updatable="false"`). */
export type UpdateInput<E extends EntityTypeSpec> = Partial<Omit<E['props'], E['immutable'] | E['computed']>> & { '@odata.etag'?: string | undefined };

/** The operations map `M`'s entry `N` as an {@link OperationSpec}. */
export type Operation<M, N extends keyof M> = M[N] & OperationSpec;

/** An operation's parameters as call arguments: optional when it has no required parameter. */
export type ParamsArg<Op extends OperationSpec> = [Op] extends [never] ? [params?: never] : object extends Op['params'] ? [params?: Op['params']] : [params: Op['params']];

/** The writes service S's metadata refuses on entity set or singleton N (`never`: none; see `refuses` of `ServiceSpec`). */
export type RefusedOf<S, N extends string> = S extends { refuses: infer R } ? (N extends keyof R ? R[N] & WriteKind : never) : never;
