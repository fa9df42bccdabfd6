import type { Expr } from '../query/filter.js';
import type { LiteralValue } from '../query/literal.js';
import type { DateEdm, FilterPath, NavManyName, NavTarget, NumericEdm, PathValue, PropOfEdm, TimeEdm } from './names.js';
import type { EntityTypeSpec } from './spec.js';

/**
 * The filter builder of a typed query (the same object as {@link FilterBuilder} at run time, typed by
 * the entity type's spec): property names are checked, a comparison takes the property's value type,
 * string functions take only `Edm.String` properties, date and time parts only date and time types,
 * arithmetic only numbers, `any`/`all` only to-many navigation properties (their predicate typed by the
 * target). Comparisons, null checks, `in` and `prop` also take a property through a to-one navigation
 * (`'Category/Name'`, one level); deeper paths through `raw()`.
 *
 * @example
 * ```ts
 * // od: TypedODataClient<Service>
 * od.from('Products').filter((f) => f.and(f.gt('Price', 10), f.contains('Name', 'Ale')))
 * ```
 */
export interface TypedFilterBuilder<E extends EntityTypeSpec> {
  /** A property reference (a name, or `Nav/Name` through a to-one navigation). */
  prop(path: FilterPath<E>): Expr;
  /** A literal value (usually implicit). */
  value(value: LiteralValue): Expr;
  /** A raw expression written by hand; you are responsible for its syntax and its literals. */
  raw(text: string): Expr;

  /** `a eq b` */ eq<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a eq b` on an expression */ eq(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a ne b` */ ne<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a ne b` on an expression */ ne(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a lt b` */ lt<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a lt b` on an expression */ lt(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a le b` */ le<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a le b` on an expression */ le(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a gt b` */ gt<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a gt b` on an expression */ gt(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a ge b` */ ge<K extends FilterPath<E>>(a: K, b: PathValue<E, K> | Expr): Expr;
  /** `a ge b` on an expression */ ge(a: Expr, b: LiteralValue | Expr): Expr;

  /** `a add b` */ add(a: PropOfEdm<E, NumericEdm> | Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a sub b` */ sub(a: PropOfEdm<E, NumericEdm> | Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mul b` */ mul(a: PropOfEdm<E, NumericEdm> | Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a div b` */ div(a: PropOfEdm<E, NumericEdm> | Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mod b` */ mod(a: PropOfEdm<E, NumericEdm> | Expr, b: number | bigint | LiteralValue | Expr): Expr;

  /** `a eq null` */ isNull(a: FilterPath<E> | Expr): Expr;
  /** `a ne null` */ isNotNull(a: FilterPath<E> | Expr): Expr;
  /** All of `parts`. */ and(...parts: Expr[]): Expr;
  /** Any of `parts`. */ or(...parts: Expr[]): Expr;
  /** `not (e)` */ not(e: Expr): Expr;
  /** `a in (v1, v2, …)` (v4; an `or` of equalities in v2). */
  in<K extends FilterPath<E>>(a: K, values: readonly (PathValue<E, K> | Expr)[]): Expr;

  /** `contains(a,'x')` (v2: `substringof`). */ contains(a: PropOfEdm<E, 'Edm.String'> | Expr, text: string | Expr): Expr;
  /** `startswith(a,'x')` */ startswith(a: PropOfEdm<E, 'Edm.String'> | Expr, text: string | Expr): Expr;
  /** `endswith(a,'x')` */ endswith(a: PropOfEdm<E, 'Edm.String'> | Expr, text: string | Expr): Expr;
  /** `indexof(a,'x')` */ indexof(a: PropOfEdm<E, 'Edm.String'> | Expr, text: string | Expr): Expr;
  /** `concat(a,b)` */ concat(a: PropOfEdm<E, 'Edm.String'> | Expr, b: string | Expr): Expr;
  /** `substring(a,start[,length])` */ substring(a: PropOfEdm<E, 'Edm.String'> | Expr, start: number, length?: number): Expr;
  /** `tolower(a)` */ tolower(a: PropOfEdm<E, 'Edm.String'> | Expr): Expr;
  /** `toupper(a)` */ toupper(a: PropOfEdm<E, 'Edm.String'> | Expr): Expr;
  /** `trim(a)` */ trim(a: PropOfEdm<E, 'Edm.String'> | Expr): Expr;
  /** `length(a)` */ length(a: PropOfEdm<E, 'Edm.String'> | Expr): Expr;
  /** `year(a)` */ year(a: PropOfEdm<E, DateEdm> | Expr): Expr;
  /** `month(a)` */ month(a: PropOfEdm<E, DateEdm> | Expr): Expr;
  /** `day(a)` */ day(a: PropOfEdm<E, DateEdm> | Expr): Expr;
  /** `hour(a)` */ hour(a: PropOfEdm<E, TimeEdm> | Expr): Expr;
  /** `minute(a)` */ minute(a: PropOfEdm<E, TimeEdm> | Expr): Expr;
  /** `second(a)` */ second(a: PropOfEdm<E, TimeEdm> | Expr): Expr;
  /** `round(a)` */ round(a: PropOfEdm<E, NumericEdm> | Expr): Expr;
  /** `floor(a)` */ floor(a: PropOfEdm<E, NumericEdm> | Expr): Expr;
  /** `ceiling(a)` */ ceiling(a: PropOfEdm<E, NumericEdm> | Expr): Expr;

  /** `Nav/any(x:predicate)` over a to-many navigation property (v4); without a predicate, "not empty". */
  any<N extends NavManyName<E>>(nav: N, variable?: string, predicate?: (f: TypedFilterBuilder<NavTarget<E, N>>) => Expr): Expr;
  /** `Nav/all(x:predicate)` (v4). */
  all<N extends NavManyName<E>>(nav: N, variable: string, predicate: (f: TypedFilterBuilder<NavTarget<E, N>>) => Expr): Expr;
}
