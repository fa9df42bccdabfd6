import type { Expr } from '../query/filter.js';
import type { TypedFilterBuilder } from './filter.js';
import type { NavName, NavTarget, NavValue, OrderItem, PropName, Selected } from './names.js';
import type { MaxPathHops, OneLess } from './paths.js';
import type { EntityTypeSpec } from './spec.js';

// What `expand()` adds to a typed query's rows: the navigation property, typed by its target as the nested
// options read it (their `select` narrows it, their `expand` adds to it in turn), down to a fixed depth.

/**
 * Options nested in a typed `$expand` item (v4; v2 takes none): the target's property and navigation
 * names are checked. `select` (`K`: the names selected) narrows the expanded value's type; `expand` (`XP`:
 * names, or names with their own options) adds the target's navigation properties to it.
 */
export interface TypedExpandOptions<T extends EntityTypeSpec, K extends string = PropName<T>, XP = ExpandMap<T>> {
  /** Properties of the target to read (narrows the expanded value's type). */
  select?: readonly K[] | undefined;
  filter?: string | Expr | ((f: TypedFilterBuilder<T>) => Expr) | undefined;
  orderBy?: readonly OrderItem<T>[] | undefined;
  top?: number | undefined;
  skip?: number | undefined;
  count?: boolean | undefined;
  /** Navigation properties of the target to expand in turn: names, or names with their own options (`true`: none). */
  expand?: XP | undefined;
}

/** What nested `expand` options of target T take: navigation property names, or names with their own options (`true`: none). */
export type ExpandMap<T extends EntityTypeSpec> = readonly NavName<T>[] | { readonly [N in NavName<T>]?: TypedExpandOptions<NavTarget<T, N>> | true };

/** How many levels of nested `expand` options shape the row type; deeper expansions are read but not typed. */
export type MaxExpandDepth = 3;

/** The property names nested options `O` select (`never`, all properties, when they select none). */
export type SelectOf<O> = O extends { readonly select: readonly (infer K extends string)[] } ? K : never;

/** An entity of type T as an expansion with options `O` reads it: its selected properties and what `O.expand` adds. */
export type ExpandedRow<T extends EntityTypeSpec, O, Depth extends number = MaxExpandDepth> =
  Selected<T, SelectOf<O>> & ([Depth] extends [0] ? unknown : NestedExpanded<T, O extends { readonly expand: infer XP } ? XP : never, OneLess[Depth]>);

/** What nested `expand` options (`XP`) add: each named navigation property, typed by its target (and its own options). */
export type NestedExpanded<T extends EntityTypeSpec, XP, Depth extends number = OneLess[MaxExpandDepth]> = [XP] extends [never]
  ? unknown
  : XP extends readonly (infer M extends string)[]
    ? { [P in M & NavName<T>]: NavValue<T, P, NavTarget<T, P>['props']> }
    : { [P in keyof XP & NavName<T>]: NavValue<T, P, XP[P] extends true ? NavTarget<T, P>['props'] : ExpandedRow<NavTarget<T, P>, XP[P], Depth>> };

/**
 * What `expand(N, { select, expand })` adds to the row type: `N`, an array (to-many) or the entity or null
 * (to-one), with the properties `K` selected (all when `never`) and what the nested `expand` (`XP`) adds.
 */
export type Expanded<E extends EntityTypeSpec, N extends NavName<E>, K extends string = never, XP = never> =
  { [P in N]: NavValue<E, N, Selected<NavTarget<E, N>, K> & NestedExpanded<NavTarget<E, N>, XP>> };

/**
 * `P` when it is a path of navigation properties of E (`'Lines/Order'`, at most {@link MaxPathHops} + 1
 * steps, to-one or to-many), else what was allowed where it went wrong. OData v2 expands such paths
 * (`$expand=Lines/Order`); v4 takes nested options instead.
 */
export type CheckExpandPath<E extends EntityTypeSpec, P extends string, Hops extends number = MaxPathHops> =
  P extends NavName<E>
    ? P
    : P extends `${infer N}/${infer Rest}`
      ? N extends NavName<E>
        ? [Hops] extends [0] ? NavName<E> : `${N}/${CheckExpandPath<NavTarget<E, N>, Rest, OneLess[Hops]>}`
        : NavName<E> | `${NavName<E>}/${string}`
      : NavName<E> | `${NavName<E>}/${string}`;

/** What `expand('A/B')` adds to the row type: `A`, typed by its target, which has `B`, and so on along the path. */
export type ExpandedPath<E extends EntityTypeSpec, P extends string> = P extends NavName<E>
  ? { [K in P]: NavValue<E, P, NavTarget<E, P>['props']> }
  : P extends `${infer N extends NavName<E>}/${infer Rest}`
    ? { [K in N]: NavValue<E, N, NavTarget<E, N>['props'] & ExpandedPath<NavTarget<E, N>, Rest>> }
    : never;
