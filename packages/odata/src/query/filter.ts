import { ConfigError } from '@sluice/core';
import type { ODataProtocol } from '../protocol/types.js';
import { namedLiteral, toLiteral, type LiteralValue } from './literal.js';
import { checkPath } from './names.js';

/** What rendering an expression needs: the protocol (literal spelling) and property types if known. */
export interface RenderContext {
  protocol: ODataProtocol;
  /** EDM type of a property path from the queried entity type, when `$metadata` is loaded. */
  typeOf(path: string): string | undefined;
}

// Operator precedence, OData 4.01 Part 2 section 5.1.1.1 (higher binds tighter).
const OR = 1;
const AND = 2;
const EQUALITY = 3;
const RELATIONAL = 4;
const ADDITIVE = 5;
const MULTIPLICATIVE = 6;
const UNARY = 7;
const PRIMARY = 8;

/**
 * A `$filter` expression (or part of one) built with the filter builder; it is rendered when the URL is
 * built, so literals follow the service's version and, when known, the property types of `$metadata`.
 */
export class Expr {
  /** @internal */
  constructor(
    readonly render: (ctx: RenderContext) => string,
    readonly precedence: number,
    /** Path from the queried entity type, for typing literals compared with it. */
    readonly typePath?: string,
  ) {}
}

/** A property path of T (`'Name'`), a navigation path (`'Category/Name'`), or any string. */
export type PropertyPath<T> = Extract<keyof T, string> | (string & {});

/** An operand: a property path (left side) or an expression. */
export type Operand<T> = PropertyPath<T> | Expr;

function wrap(expr: Expr, ctx: RenderContext, min: number): string {
  const text = expr.render(ctx);
  return expr.precedence < min ? `(${text})` : text;
}

function literalExpr(value: LiteralValue, typePath: string | undefined): Expr {
  return new Expr((ctx) => ctx.protocol.formatLiteral(typePath === undefined ? toLiteral(value) : namedLiteral(value, ctx.typeOf(typePath), `filter value of ${typePath}`)), PRIMARY);
}

/**
 * Builds `$filter` expressions with checked property names and literals formatted for the service's
 * version (SPEC 4.5 grammar: comparisons, `and`/`or`/`not`, string functions, arithmetic, null checks,
 * `in`, `any`/`all`). Property names are validated as OData identifiers, so a value can never become
 * syntax. Get one from `query.filter((f) => ...)` or `filterBuilder<T>()`.
 *
 * @example
 * ```ts
 * od.from<Product>('Products').filter((f) =>
 *   f.and(f.eq('Active', true), f.or(f.contains(f.tolower('Name'), "o'b"), f.gt('Price', 100))))
 * // $filter=Active eq true and (contains(tolower(Name),'o''b') or Price gt 100)
 * ```
 */
export class FilterBuilder<T = Record<string, unknown>> {
  /** @param prefix lambda variable that property paths are relative to; @param base their path from the root type. */
  constructor(private readonly prefix?: string, private readonly base?: string) {}

  /** A property reference (validated path). */
  prop(path: PropertyPath<T>): Expr {
    checkPath(path, 'filter property');
    const text = this.prefix === undefined ? path : `${this.prefix}/${path}`;
    const typePath = this.base === undefined ? path : `${this.base}/${path}`;
    return new Expr(() => text, PRIMARY, typePath);
  }

  /** A literal value (usually implicit: right-hand values are literals already). */
  value(value: LiteralValue): Expr {
    return literalExpr(value, undefined);
  }

  /** A raw expression written by hand; you are responsible for its syntax and its literals. */
  raw(text: string): Expr {
    if (typeof text !== 'string' || text.trim() === '') throw new ConfigError('filter', 'raw expression must be a non-empty string');
    return new Expr(() => text, OR);
  }

  private left(operand: Operand<T>): Expr {
    return operand instanceof Expr ? operand : this.prop(operand);
  }

  private right(operand: LiteralValue | Expr, left: Expr): Expr {
    return operand instanceof Expr ? operand : literalExpr(operand, left.typePath);
  }

  private binary(op: string, prec: number, a: Operand<T>, b: LiteralValue | Expr): Expr {
    const left = this.left(a);
    const right = this.right(b, left);
    return new Expr((ctx) => `${wrap(left, ctx, prec)} ${op} ${wrap(right, ctx, prec + 1)}`, prec, left.typePath);
  }

  /** `a eq b` */ eq(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('eq', EQUALITY, a, b); }
  /** `a ne b` */ ne(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('ne', EQUALITY, a, b); }
  /** `a lt b` */ lt(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('lt', RELATIONAL, a, b); }
  /** `a le b` */ le(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('le', RELATIONAL, a, b); }
  /** `a gt b` */ gt(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('gt', RELATIONAL, a, b); }
  /** `a ge b` */ ge(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('ge', RELATIONAL, a, b); }
  /** `a add b` */ add(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('add', ADDITIVE, a, b); }
  /** `a sub b` */ sub(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('sub', ADDITIVE, a, b); }
  /** `a mul b` */ mul(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('mul', MULTIPLICATIVE, a, b); }
  /** `a div b` */ div(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('div', MULTIPLICATIVE, a, b); }
  /** `a mod b` */ mod(a: Operand<T>, b: LiteralValue | Expr): Expr { return this.binary('mod', MULTIPLICATIVE, a, b); }

  /** `a eq null` */ isNull(a: Operand<T>): Expr { return this.eq(a, null); }
  /** `a ne null` */ isNotNull(a: Operand<T>): Expr { return this.ne(a, null); }

  private logical(op: string, prec: number, parts: readonly Expr[]): Expr {
    if (parts.length === 0) throw new ConfigError('filter', `${op}() needs at least one expression`);
    if (parts.length === 1) return parts[0]!;
    return new Expr((ctx) => parts.map((p) => wrap(p, ctx, prec)).join(` ${op} `), prec);
  }

  /** All of `parts` (`a and b and …`). */ and(...parts: Expr[]): Expr { return this.logical('and', AND, parts); }
  /** Any of `parts` (`a or b or …`). */ or(...parts: Expr[]): Expr { return this.logical('or', OR, parts); }
  /** `not (e)` */
  not(e: Expr): Expr {
    return new Expr((ctx) => `not (${e.render(ctx)})`, UNARY);
  }

  /** `a in (v1, v2, …)` (v4); an `or` of equalities in v2. */
  in(a: Operand<T>, values: readonly (LiteralValue | Expr)[]): Expr {
    if (!Array.isArray(values) || values.length === 0) throw new ConfigError('filter', 'in() needs a non-empty array of values');
    const left = this.left(a);
    const items = values.map((v) => this.right(v, left));
    return new Expr((ctx) => ctx.protocol.inList(wrap(left, ctx, RELATIONAL), items.map((i) => i.render(ctx))), RELATIONAL);
  }

  private fn(name: string, args: readonly Expr[], typePath?: string): Expr {
    return new Expr((ctx) => ctx.protocol.call(name, args.map((a) => a.render(ctx))), PRIMARY, typePath);
  }

  private strArg(value: string | Expr): Expr {
    return value instanceof Expr ? value : literalExpr(value, undefined);
  }

  /** `contains(a,'x')` (v2: `substringof('x',a)`). */ contains(a: Operand<T>, text: string | Expr): Expr { return this.fn('contains', [this.left(a), this.strArg(text)]); }
  /** `startswith(a,'x')` */ startswith(a: Operand<T>, text: string | Expr): Expr { return this.fn('startswith', [this.left(a), this.strArg(text)]); }
  /** `endswith(a,'x')` */ endswith(a: Operand<T>, text: string | Expr): Expr { return this.fn('endswith', [this.left(a), this.strArg(text)]); }
  /** `indexof(a,'x')` */ indexof(a: Operand<T>, text: string | Expr): Expr { return this.fn('indexof', [this.left(a), this.strArg(text)]); }
  /** `concat(a,b)` */ concat(a: Operand<T>, b: string | Expr): Expr { return this.fn('concat', [this.left(a), this.strArg(b)]); }
  /** `substring(a,start[,length])` */
  substring(a: Operand<T>, start: number, length?: number): Expr {
    const args = [this.left(a), this.value(start)];
    if (length !== undefined) args.push(this.value(length));
    return this.fn('substring', args);
  }
  /** `tolower(a)` */ tolower(a: Operand<T>): Expr { const l = this.left(a); return this.fn('tolower', [l], l.typePath); }
  /** `toupper(a)` */ toupper(a: Operand<T>): Expr { const l = this.left(a); return this.fn('toupper', [l], l.typePath); }
  /** `trim(a)` */ trim(a: Operand<T>): Expr { const l = this.left(a); return this.fn('trim', [l], l.typePath); }
  /** `length(a)` */ length(a: Operand<T>): Expr { return this.fn('length', [this.left(a)]); }
  /** `year(a)` */ year(a: Operand<T>): Expr { return this.fn('year', [this.left(a)]); }
  /** `month(a)` */ month(a: Operand<T>): Expr { return this.fn('month', [this.left(a)]); }
  /** `day(a)` */ day(a: Operand<T>): Expr { return this.fn('day', [this.left(a)]); }
  /** `hour(a)` */ hour(a: Operand<T>): Expr { return this.fn('hour', [this.left(a)]); }
  /** `minute(a)` */ minute(a: Operand<T>): Expr { return this.fn('minute', [this.left(a)]); }
  /** `second(a)` */ second(a: Operand<T>): Expr { return this.fn('second', [this.left(a)]); }
  /** `round(a)` */ round(a: Operand<T>): Expr { return this.fn('round', [this.left(a)]); }
  /** `floor(a)` */ floor(a: Operand<T>): Expr { return this.fn('floor', [this.left(a)]); }
  /** `ceiling(a)` */ ceiling(a: Operand<T>): Expr { return this.fn('ceiling', [this.left(a)]); }

  /**
   * `Nav/any(x:predicate)` over a collection navigation (v4; v2 has no lambdas). Without a predicate,
   * `Nav/any()` (the collection is not empty).
   *
   * @example
   * ```ts
   * f.any('Products', 'p', (p) => p.gt('Price', 100))  // Products/any(p:p/Price gt 100)
   * ```
   */
  any<U = Record<string, unknown>>(nav: PropertyPath<T>, variable?: string, predicate?: (f: FilterBuilder<U>) => Expr): Expr {
    return this.lambda('any', nav, variable, predicate);
  }

  /** `Nav/all(x:predicate)` (v4). */
  all<U = Record<string, unknown>>(nav: PropertyPath<T>, variable: string, predicate: (f: FilterBuilder<U>) => Expr): Expr {
    return this.lambda('all', nav, variable, predicate);
  }

  private lambda<U>(op: 'any' | 'all', nav: PropertyPath<T>, variable: string | undefined, predicate: ((f: FilterBuilder<U>) => Expr) | undefined): Expr {
    const path = this.prop(nav);
    if (variable !== undefined) checkPath(variable, 'lambda variable');
    const body = variable !== undefined && predicate ? predicate(new FilterBuilder<U>(variable, path.typePath)) : undefined;
    return new Expr((ctx) => ctx.protocol.lambda(path.render(ctx), op, variable, body?.render(ctx)), PRIMARY);
  }
}

/**
 * A filter builder for entity type T, for building expressions outside a query.
 *
 * @example
 * ```ts
 * const f = filterBuilder<Product>()
 * const cheap = f.lt('Price', 10)
 * od.from<Product>('Products').filter(cheap)
 * ```
 */
export function filterBuilder<T = Record<string, unknown>>(): FilterBuilder<T> {
  return new FilterBuilder<T>();
}
