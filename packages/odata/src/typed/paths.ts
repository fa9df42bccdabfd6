import type { FilterValue, NavManyName, NavName, NavOneName, NavTarget, PropName, PropOfEdm } from './names.js';
import type { EntityTypeSpec } from './spec.js';

// Property paths through to-one navigation (`Category/Supplier/Name`), checked by walking the path the caller
// wrote, one segment per level: the compiler never lists every path of an entity type (a service whose types
// link to each other would give thousands per type), and a path costs only as many steps as it has segments.

/** How many to-one navigation properties a typed path may pass through (`A/B/C/Name`); deeper paths through `raw()`. */
export type MaxPathHops = 3;

/** One less (`OneLess[3]` is 2): the hops or levels left after a step, for the depth limits of typed paths and expansions. */
export type OneLess = [never, 0, 1, 2];

/** What may start a path of E: a property, or a to-one navigation property followed by `/`. */
export type PathStart<E extends EntityTypeSpec> = PropName<E> | `${NavOneName<E>}/${string}`;

/** The EDM type a spec declares for property P (`unknown` when it declares none). */
export type EdmOf<E extends EntityTypeSpec, P> = P extends keyof E['edm'] ? E['edm'][P] : unknown;

/**
 * `P` itself when it is a property of E, or a property reached through up to {@link MaxPathHops} to-one
 * navigation properties, whose EDM type is one of `Edm` (any when `Edm` is `unknown`); otherwise what
 * was allowed where `P` went wrong (the properties of that EDM type, or the names a path may go on
 * with), so that the compiler's message lists it. A method takes a path as
 * `P & CheckPath<E, P>`: a valid path is its own type, a wrong one is refused.
 */
export type CheckPath<E extends EntityTypeSpec, P extends string, Edm = unknown, Hops extends number = MaxPathHops> =
  P extends PropName<E>
    ? ([unknown] extends [Edm] ? P : EdmOf<E, P> extends Edm ? P : PropOfEdm<E, Edm & string>)
    : P extends `${infer N}/${infer Rest}`
      ? N extends NavOneName<E>
        ? [Hops] extends [0] ? PropName<E> : `${N}/${CheckPath<NavTarget<E, N>, Rest, Edm, OneLess[Hops]>}`
        : PathStart<E>
      : PathStart<E>;

/** The values path `P` (checked by {@link CheckPath}) compares with: {@link FilterValue} of its property, `| null` through a navigation (which may be absent). */
export type PathValue<E extends EntityTypeSpec, P extends string> = P extends PropName<E>
  ? FilterValue<E, P>
  : P extends `${infer N}/${infer Rest}`
    ? N extends NavOneName<E> ? PathValue<NavTarget<E, N>, Rest> | null : never
    : never;

/** `P` when it names a to-many navigation property of E, directly or through up to {@link MaxPathHops} to-one ones (`Category/Products`); else what was allowed. */
export type CheckManyPath<E extends EntityTypeSpec, P extends string, Hops extends number = MaxPathHops> =
  P extends NavManyName<E>
    ? P
    : P extends `${infer N}/${infer Rest}`
      ? N extends NavOneName<E>
        ? [Hops] extends [0] ? NavManyName<E> : `${N}/${CheckManyPath<NavTarget<E, N>, Rest, OneLess[Hops]>}`
        : NavManyName<E> | `${NavOneName<E>}/${string}`
      : NavManyName<E> | `${NavOneName<E>}/${string}`;

/** The entity type a to-many path (checked by {@link CheckManyPath}) leads to: what an `any`/`all` predicate is typed by. */
export type ManyTarget<E extends EntityTypeSpec, P extends string> = P extends NavManyName<E>
  ? NavTarget<E, P>
  : P extends `${infer N}/${infer Rest}`
    ? N extends NavOneName<E> ? ManyTarget<NavTarget<E, N>, Rest> : never
    : never;

/** An `$orderby` item checked as {@link CheckPath} checks a path: the path, optionally followed by ` asc` or ` desc`. */
export type CheckOrderItem<E extends EntityTypeSpec, P extends string> = P extends `${infer Path} ${infer Direction}`
  ? Direction extends 'asc' | 'desc' ? `${CheckPath<E, Path>} ${Direction}` : `${Path} asc` | `${Path} desc`
  : CheckPath<E, P>;

/**
 * A `select()` item: `P` itself when it is a property of E, or, on OData v2 (`E['odataVersion']` is `'2.0'`), a
 * property of the target of one navigation property (`'to_Customer/CustomerName'`, to-one or to-many; the row
 * then holds it only where that navigation property is expanded); otherwise what was allowed where it went wrong.
 */
export type CheckSelectItem<E extends EntityTypeSpec, P extends string> = P extends PropName<E>
  ? P
  : E extends { odataVersion: '2.0' }
    ? P extends `${infer N}/${infer Rest}`
      ? N extends NavName<E> ? (Rest extends PropName<NavTarget<E, N>> ? P : `${N}/${PropName<NavTarget<E, N>>}`) : PropName<E> | `${NavName<E>}/${string}`
      : PropName<E> | `${NavName<E>}/${string}`
    : PropName<E>;

/** The properties `Sel` selects through navigation property `K` (`'to_Customer/CustomerName'` gives `'CustomerName'` for `to_Customer`). */
export type SelectedThrough<Sel extends string, K> = Sel extends `${K & string}/${infer Rest}` ? Rest : never;

/** An expanded value (`T[]`, `T | null`) with only the properties `R` of its entities (itself when `R` is `never`). */
export type NarrowedNav<V, R extends string> = [R] extends [never] ? V : V extends readonly (infer T)[] ? Pick<T, R & keyof T>[] : V extends null ? V : Pick<V, R & keyof V>;

/**
 * What `expand()` added (`X`), with each expanded navigation property narrowed to what `select()` paths
 * (`Sel`: `'to_Customer/CustomerName'`, OData v2) chose through it; `X` itself when `Sel` holds no path.
 */
export type PathSelected<X, Sel extends string> = [Extract<Sel, `${string}/${string}`>] extends [never] ? X : { [K in keyof X]: NarrowedNav<X[K], SelectedThrough<Sel, K>> };
