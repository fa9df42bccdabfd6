import type { Expr } from '../query/filter.js';
import type { LiteralValue } from '../query/literal.js';
import type { DateEdm, NumericEdm, TimeEdm } from './names.js';
import type { CheckManyPath, CheckPath, ManyTarget, PathValue } from './paths.js';
import type { EntityTypeSpec } from './spec.js';

/**
 * The filter builder of a typed query (the same object as {@link FilterBuilder} at run time, typed by
 * the entity type's spec): property paths are checked, a comparison takes the path's value type, string
 * functions take only `Edm.String` properties, date and time parts only date and time types, arithmetic
 * only numbers, `any`/`all` only to-many navigation properties (their predicate typed by the target).
 * A path is a property name or goes through up to three to-one navigation properties
 * (`'Category/Supplier/Name'`, see `CheckPath`); `any`/`all` take a to-many one the same way
 * (`'Category/Products'`). Deeper paths through `raw()`.
 *
 * @example
 * ```ts
 * // od: TypedODataClient<Service>
 * od.from('Products').filter((f) => f.and(f.gt('Price', 10), f.contains('Name', 'Ale'), f.eq('Category/Name', 'Beer')))
 * ```
 */
export interface TypedFilterBuilder<E extends EntityTypeSpec> {
  /** A property reference (a name, or a path through to-one navigation: `Nav/Name`). */
  prop<P extends string>(path: P & CheckPath<E, P>): Expr;
  /** A literal value (usually implicit). */
  value(value: LiteralValue): Expr;
  /** A raw expression written by hand; you are responsible for its syntax and its literals. */
  raw(text: string): Expr;

  /** `a eq b` */ eq<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a eq b` on an expression */ eq(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a ne b` */ ne<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a ne b` on an expression */ ne(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a lt b` */ lt<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a lt b` on an expression */ lt(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a le b` */ le<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a le b` on an expression */ le(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a gt b` */ gt<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a gt b` on an expression */ gt(a: Expr, b: LiteralValue | Expr): Expr;
  /** `a ge b` */ ge<P extends string>(a: P & CheckPath<E, P>, b: PathValue<E, P> | Expr): Expr;
  /** `a ge b` on an expression */ ge(a: Expr, b: LiteralValue | Expr): Expr;

  /** `a add b` */ add<P extends string>(a: P & CheckPath<E, P, NumericEdm>, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a add b` on an expression */ add(a: Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a sub b` */ sub<P extends string>(a: P & CheckPath<E, P, NumericEdm>, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a sub b` on an expression */ sub(a: Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mul b` */ mul<P extends string>(a: P & CheckPath<E, P, NumericEdm>, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mul b` on an expression */ mul(a: Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a div b` */ div<P extends string>(a: P & CheckPath<E, P, NumericEdm>, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a div b` on an expression */ div(a: Expr, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mod b` */ mod<P extends string>(a: P & CheckPath<E, P, NumericEdm>, b: number | bigint | LiteralValue | Expr): Expr;
  /** `a mod b` on an expression */ mod(a: Expr, b: number | bigint | LiteralValue | Expr): Expr;

  /** `a eq null` */ isNull<P extends string>(a: P & CheckPath<E, P>): Expr;
  /** `a eq null` on an expression */ isNull(a: Expr): Expr;
  /** `a ne null` */ isNotNull<P extends string>(a: P & CheckPath<E, P>): Expr;
  /** `a ne null` on an expression */ isNotNull(a: Expr): Expr;
  /** All of `parts`. */ and(...parts: Expr[]): Expr;
  /** Any of `parts`. */ or(...parts: Expr[]): Expr;
  /** `not (e)` */ not(e: Expr): Expr;
  /** `a in (v1, v2, …)` (v4; an `or` of equalities in v2). */
  in<P extends string>(a: P & CheckPath<E, P>, values: readonly (PathValue<E, P> | Expr)[]): Expr;

  /** `contains(a,'x')` (v2: `substringof`). */ contains<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, text: string | Expr): Expr;
  /** `contains(a,'x')` on an expression */ contains(a: Expr, text: string | Expr): Expr;
  /** `startswith(a,'x')` */ startswith<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, text: string | Expr): Expr;
  /** `startswith(a,'x')` on an expression */ startswith(a: Expr, text: string | Expr): Expr;
  /** `endswith(a,'x')` */ endswith<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, text: string | Expr): Expr;
  /** `endswith(a,'x')` on an expression */ endswith(a: Expr, text: string | Expr): Expr;
  /** `indexof(a,'x')` */ indexof<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, text: string | Expr): Expr;
  /** `indexof(a,'x')` on an expression */ indexof(a: Expr, text: string | Expr): Expr;
  /** `concat(a,b)` */ concat<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, b: string | Expr): Expr;
  /** `concat(a,b)` on an expression */ concat(a: Expr, b: string | Expr): Expr;
  /** `substring(a,start[,length])` */ substring<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>, start: number, length?: number): Expr;
  /** `substring(a,start[,length])` on an expression */ substring(a: Expr, start: number, length?: number): Expr;
  /** `tolower(a)` */ tolower<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>): Expr;
  /** `tolower(a)` on an expression */ tolower(a: Expr): Expr;
  /** `toupper(a)` */ toupper<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>): Expr;
  /** `toupper(a)` on an expression */ toupper(a: Expr): Expr;
  /** `trim(a)` */ trim<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>): Expr;
  /** `trim(a)` on an expression */ trim(a: Expr): Expr;
  /** `length(a)` */ length<P extends string>(a: P & CheckPath<E, P, 'Edm.String'>): Expr;
  /** `length(a)` on an expression */ length(a: Expr): Expr;
  /** `year(a)` */ year<P extends string>(a: P & CheckPath<E, P, DateEdm>): Expr;
  /** `year(a)` on an expression */ year(a: Expr): Expr;
  /** `month(a)` */ month<P extends string>(a: P & CheckPath<E, P, DateEdm>): Expr;
  /** `month(a)` on an expression */ month(a: Expr): Expr;
  /** `day(a)` */ day<P extends string>(a: P & CheckPath<E, P, DateEdm>): Expr;
  /** `day(a)` on an expression */ day(a: Expr): Expr;
  /** `hour(a)` */ hour<P extends string>(a: P & CheckPath<E, P, TimeEdm>): Expr;
  /** `hour(a)` on an expression */ hour(a: Expr): Expr;
  /** `minute(a)` */ minute<P extends string>(a: P & CheckPath<E, P, TimeEdm>): Expr;
  /** `minute(a)` on an expression */ minute(a: Expr): Expr;
  /** `second(a)` */ second<P extends string>(a: P & CheckPath<E, P, TimeEdm>): Expr;
  /** `second(a)` on an expression */ second(a: Expr): Expr;
  /** `round(a)` */ round<P extends string>(a: P & CheckPath<E, P, NumericEdm>): Expr;
  /** `round(a)` on an expression */ round(a: Expr): Expr;
  /** `floor(a)` */ floor<P extends string>(a: P & CheckPath<E, P, NumericEdm>): Expr;
  /** `floor(a)` on an expression */ floor(a: Expr): Expr;
  /** `ceiling(a)` */ ceiling<P extends string>(a: P & CheckPath<E, P, NumericEdm>): Expr;
  /** `ceiling(a)` on an expression */ ceiling(a: Expr): Expr;

  /** `Nav/any(x:predicate)` over a to-many navigation property (v4), also through to-one ones (`Category/Products`); without a predicate, "not empty". */
  any<P extends string>(nav: P & CheckManyPath<E, P>, variable?: string, predicate?: (f: TypedFilterBuilder<ManyTarget<E, P>>) => Expr): Expr;
  /** `Nav/all(x:predicate)` (v4). */
  all<P extends string>(nav: P & CheckManyPath<E, P>, variable: string, predicate: (f: TypedFilterBuilder<ManyTarget<E, P>>) => Expr): Expr;
}
