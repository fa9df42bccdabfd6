// Parses OData common expressions ($filter, $orderby) into typed closures over a row, following the
// operator precedence of OData v4.01 URL Conventions 5.1.1 (v2: MS-ODATA 2.2.3.6.1.1).
import { badRequest } from './errors.js';
import { tokenize, type Token } from './filter-lexer.js';
import {
  FUNCTIONS, V2_FUNCTIONS, V4_FUNCTIONS, arithmetic, compare, isNumeric, type FunctionDef, type StaticType,
} from './filter-eval.js';
import { DateValue, ENTITY_SETS, type EdmType, type EntitySetDef, type ODataVersion, type SetSizes, type Value } from './model.js';

/** A compiled expression: its static type and an evaluator over the row environment (`env[0]` is the row). */
export interface Expr {
  readonly type: StaticType;
  ev(env: unknown[]): Value;
}

/** What an expression is compiled against. */
export interface ExprContext {
  readonly set: EntitySetDef;
  readonly version: ODataVersion;
  readonly sizes: SetSizes;
}

/** One compiled `$orderby` item. */
export interface OrderItem {
  readonly expr: Expr;
  readonly desc: boolean;
}

const EDM_TO_STATIC: Record<EdmType, StaticType> = {
  'Edm.Int32': 'int', 'Edm.Int64': 'int', 'Edm.Decimal': 'dec', 'Edm.Double': 'dbl', 'Edm.String': 'str',
  'Edm.Boolean': 'bool', 'Edm.DateTimeOffset': 'date', 'Edm.Guid': 'guid',
};
const COMPARISONS = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);

/** Compiles a `$filter` expression to a predicate; throws 400 ODataServerError on bad syntax or types. */
export function compileFilter(src: string, ctx: ExprContext): (row: unknown) => boolean {
  const parser = new Parser(src, ctx, '$filter');
  const expr = parser.or();
  parser.expectEnd();
  if (expr.type !== 'bool' && expr.type !== 'null') throw badRequest('$filter must be a Boolean expression', '$filter');
  const env: unknown[] = [];
  return (row) => {
    env[0] = row;
    return expr.ev(env) === true;
  };
}

/** Compiles an `$orderby` list (`expr [asc|desc], …`). */
export function compileOrderBy(src: string, ctx: ExprContext): OrderItem[] {
  const parser = new Parser(src, ctx, '$orderby');
  const items: OrderItem[] = [];
  for (;;) {
    const expr = parser.or();
    const dir = parser.peekWord();
    let desc = false;
    if (dir === 'asc' || dir === 'desc') { parser.next(); desc = dir === 'desc'; }
    items.push({ expr, desc });
    if (parser.peek().kind === 'comma') { parser.next(); continue; }
    parser.expectEnd();
    return items;
  }
}

interface Scope { name: string; set: EntitySetDef; depth: number }

class Parser {
  private readonly tokens: Token[];
  private pos = 0;
  private readonly scopes: Scope[] = [];
  private readonly functions: Record<string, FunctionDef>;

  constructor(src: string, private readonly ctx: ExprContext, private readonly option: string) {
    this.tokens = tokenize(src, ctx.version, option);
    this.functions = { ...FUNCTIONS, ...(ctx.version === 4 ? V4_FUNCTIONS : V2_FUNCTIONS) };
  }

  peek(): Token { return this.tokens[this.pos] as Token; }
  next(): Token { return this.tokens[this.pos++] as Token; }
  peekWord(): string | undefined { const t = this.peek(); return t.kind === 'ident' ? t.text : undefined; }

  expectEnd(): void {
    const t = this.peek();
    if (t.kind !== 'end') throw this.error(`unexpected '${t.text}' at position ${t.pos}`);
  }

  private expect(kind: Token['kind'], what: string): Token {
    const t = this.next();
    if (t.kind !== kind) throw this.error(`expected ${what} at position ${t.pos}, found '${t.text || 'end'}'`);
    return t;
  }

  private error(message: string): Error {
    return badRequest(`Syntax error in ${this.option}: ${message}`, this.option);
  }

  or(): Expr {
    let left = this.and();
    while (this.peekWord() === 'or') {
      this.next();
      const l = this.boolean(left, 'or');
      const r = this.boolean(this.and(), 'or');
      // three-valued logic: true wins over null (URL Conventions 5.1.1.2)
      left = { type: 'bool', ev: (env) => { const a = l.ev(env); if (a === true) return true; const b = r.ev(env); return b === true ? true : a === null || b === null ? null : false; } };
    }
    return left;
  }

  private and(): Expr {
    let left = this.not();
    while (this.peekWord() === 'and') {
      this.next();
      const l = this.boolean(left, 'and');
      const r = this.boolean(this.not(), 'and');
      left = { type: 'bool', ev: (env) => { const a = l.ev(env); if (a === false) return false; const b = r.ev(env); return b === false ? false : a === null || b === null ? null : true; } };
    }
    return left;
  }

  private not(): Expr {
    if (this.peekWord() === 'not') {
      this.next();
      const e = this.boolean(this.not(), 'not');
      return { type: 'bool', ev: (env) => { const v = e.ev(env); return v === null ? null : !v; } };
    }
    return this.comparison();
  }

  private boolean(e: Expr, op: string): Expr {
    if (e.type !== 'bool' && e.type !== 'null') throw badRequest(`Operator '${op}' needs Boolean operands`, this.option);
    return e;
  }

  private comparison(): Expr {
    const left = this.additive();
    const word = this.peekWord();
    if (word && COMPARISONS.has(word)) {
      this.next();
      const right = this.additive();
      this.checkComparable(left, right, word);
      const ordered = word !== 'eq' && word !== 'ne';
      return {
        type: 'bool',
        ev: (env) => {
          const a = left.ev(env);
          const b = right.ev(env);
          if (a === null || b === null) {
            // eq/ne compare nulls as values; ordering with null is false (URL Conventions 5.1.1.1)
            if (ordered) return word === 'le' || word === 'ge' ? a === b : false;
            return word === 'eq' ? a === b : a !== b;
          }
          const c = compare(a, b);
          switch (word) {
            case 'eq': return c === 0;
            case 'ne': return c !== 0;
            case 'lt': return c < 0;
            case 'le': return c <= 0;
            case 'gt': return c > 0;
            default: return c >= 0;
          }
        },
      };
    }
    if (word === 'in') {
      if (this.ctx.version !== 4) throw badRequest("The 'in' operator needs OData 4.01", this.option);
      this.next();
      this.expect('open', "'('");
      const list: Expr[] = [];
      for (;;) {
        const item = this.additive();
        this.checkComparable(left, item, 'in');
        list.push(item);
        const t = this.next();
        if (t.kind === 'close') break;
        if (t.kind !== 'comma') throw this.error(`expected ',' or ')' in 'in' list at position ${t.pos}`);
      }
      return {
        type: 'bool',
        ev: (env) => {
          const a = left.ev(env);
          if (a === null) return list.some((e) => e.ev(env) === null);
          return list.some((e) => { const b = e.ev(env); return b !== null && compare(a, b) === 0; });
        },
      };
    }
    return left;
  }

  private checkComparable(a: Expr, b: Expr, op: string): void {
    if (a.type === 'null' || b.type === 'null' || a.type === b.type) return;
    if (isNumeric(a.type) && isNumeric(b.type)) return;
    throw badRequest(`Incompatible operand types for '${op}': ${a.type} and ${b.type}`, this.option);
  }

  private additive(): Expr {
    let left = this.multiplicative();
    for (let w = this.peekWord(); w === 'add' || w === 'sub'; w = this.peekWord()) {
      this.next();
      left = this.arith(w, left, this.multiplicative());
    }
    return left;
  }

  private multiplicative(): Expr {
    let left = this.unary();
    for (let w = this.peekWord(); w === 'mul' || w === 'div' || w === 'mod' || w === 'divby'; w = this.peekWord()) {
      this.next();
      left = this.arith(w, left, this.unary());
    }
    return left;
  }

  private arith(op: string, l: Expr, r: Expr): Expr {
    for (const e of [l, r]) {
      if (!isNumeric(e.type) && e.type !== 'null') throw badRequest(`Operator '${op}' needs numeric operands, got ${e.type}`, this.option);
    }
    const integral = l.type === 'int' && r.type === 'int' && op !== 'divby';
    const type: StaticType = integral ? 'int' : l.type === 'dbl' || r.type === 'dbl' || op === 'divby' ? 'dbl' : 'dec';
    const name = op === 'divby' ? 'div' : op;
    return { type, ev: (env) => arithmetic(name, l.ev(env), r.ev(env), integral) };
  }

  private unary(): Expr {
    if (this.peek().kind === 'minus') {
      this.next();
      const e = this.unary();
      if (!isNumeric(e.type)) throw badRequest(`Unary minus needs a number, got ${e.type}`, this.option);
      return { type: e.type, ev: (env) => { const v = e.ev(env); return v === null ? null : typeof v === 'bigint' ? -v : -(v as number); } };
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.next();
    switch (t.kind) {
      case 'open': {
        const e = this.or();
        this.expect('close', "')'");
        return e;
      }
      case 'string': return constant('str', t.text);
      case 'guid': return constant('guid', t.text);
      case 'number': return numberLiteral(t);
      case 'date': return constant('date', new DateValue(Date.parse(`${t.text}T00:00:00Z`)));
      case 'datetime': {
        // v2 datetime'…' has no zone and means UTC here, as SAP gateway treats it
        const text = /(?:Z|[+-]\d{2}:\d{2})$/i.test(t.text) ? t.text : `${t.text}Z`;
        const ms = Date.parse(text);
        if (Number.isNaN(ms)) throw badRequest(`Invalid date-time literal '${t.text}'`, this.option);
        return constant('date', new DateValue(ms));
      }
      case 'ident': return this.identifier(t);
      default: throw this.error(`unexpected '${t.text || 'end'}' at position ${t.pos}`);
    }
  }

  private identifier(t: Token): Expr {
    if (t.text === 'true' || t.text === 'false') return constant('bool', t.text === 'true');
    if (t.text === 'null') return constant('null', null);
    if (this.peek().kind === 'open') return this.call(t);
    return this.path(t);
  }

  private call(t: Token): Expr {
    const fn = this.functions[t.text];
    if (!fn) throw badRequest(`Unknown function '${t.text}' in OData ${this.ctx.version === 4 ? 'v4' : 'v2'}`, this.option);
    this.next();
    const args: Expr[] = [];
    if (this.peek().kind !== 'close') {
      for (;;) {
        args.push(this.or());
        const sep = this.next();
        if (sep.kind === 'close') break;
        if (sep.kind !== 'comma') throw this.error(`expected ',' or ')' at position ${sep.pos}`);
      }
    } else this.next();
    const max = fn.args.length;
    const min = max - (fn.optional ?? 0);
    if (args.length < min || args.length > max) throw badRequest(`Function '${t.text}' takes ${min === max ? max : `${min} to ${max}`} arguments`, this.option);
    args.forEach((a, i) => {
      const want = fn.args[i] as StaticType;
      const ok = a.type === 'null' || a.type === want || (isNumeric(want) && isNumeric(a.type));
      if (!ok) throw badRequest(`Argument ${i + 1} of '${t.text}' must be ${want}, got ${a.type}`, this.option);
    });
    return {
      type: fn.result,
      ev: (env) => {
        const values = args.map((a) => a.ev(env));
        return values.some((v) => v === null) ? null : fn.call(values);
      },
    };
  }

  private path(first: Token): Expr {
    let set = this.ctx.set;
    let rowOf: (env: unknown[]) => unknown = (env) => env[0];
    let name = first.text;
    const scope = this.scopes.find((s) => s.name === name) ?? (name === '$it' ? { name, set, depth: 0 } : undefined);
    if (scope) {
      set = scope.set;
      const depth = scope.depth;
      rowOf = (env) => env[depth];
      this.expect('slash', `'/' after ${name}`);
      name = this.expect('ident', 'a property name').text;
    }
    for (;;) {
      const property = set.properties.find((p) => p.name === name);
      if (property) {
        if (this.peek().kind === 'slash') throw badRequest(`Property '${name}' of ${set.typeName} has no members`, this.option);
        const get = rowOf;
        return { type: EDM_TO_STATIC[property.type], ev: (env) => { const r = get(env); return r == null ? null : property.get(r); } };
      }
      const nav = set.navs.find((n) => n.name === name);
      if (!nav) throw badRequest(`Unknown property '${name}' of ${set.typeName}`, this.option);
      const target = nav.targetSet ?? (ENTITY_SETS.get(nav.target) as EntitySetDef);
      this.expect('slash', `'/' after navigation property ${name}`);
      const parent = rowOf;
      if (!nav.many) {
        const sizes = this.ctx.sizes;
        rowOf = (env) => { const r = parent(env); return r == null ? null : target.row(nav.resolve(r, sizes).start); };
        set = target;
        name = this.expect('ident', 'a property name').text;
        continue;
      }
      return this.lambda(parent, nav.resolve.bind(nav), target);
    }
  }

  private lambda(parent: (env: unknown[]) => unknown, resolve: EntitySetDef['navs'][number]['resolve'], target: EntitySetDef): Expr {
    const op = this.expect('ident', "'any' or 'all'").text;
    if (op !== 'any' && op !== 'all') throw badRequest(`Expected any or all after a collection, got '${op}'`, this.option);
    this.expect('open', "'('");
    const sizes = this.ctx.sizes;
    if (this.peek().kind === 'close') {
      this.next();
      if (op === 'all') throw badRequest('all() needs a lambda expression', this.option);
      return { type: 'bool', ev: (env) => { const r = parent(env); return r != null && resolve(r, sizes).count > 0; } };
    }
    const variable = this.expect('ident', 'a lambda variable').text;
    this.expect('colon', "':'");
    const depth = this.scopes.length + 1;
    this.scopes.unshift({ name: variable, set: target, depth });
    const body = this.boolean(this.or(), op);
    this.scopes.shift();
    this.expect('close', "')'");
    return {
      type: 'bool',
      ev: (env) => {
        const r = parent(env);
        if (r == null) return false;
        const range = resolve(r, sizes);
        for (let k = 0; k < range.count; k++) {
          env[depth] = target.row(range.start + k * range.step);
          const v = body.ev(env) === true;
          if (op === 'any' && v) return true;
          if (op === 'all' && !v) return false;
        }
        return op === 'all';
      },
    };
  }
}

function constant(type: StaticType, value: Value): Expr {
  return { type, ev: () => value };
}

function numberLiteral(t: Token): Expr {
  const text = t.text;
  const integral = /^-?\d+$/.test(text);
  if (integral && t.tag !== 'M' && t.tag !== 'D' && t.tag !== 'F') {
    const n = Number(text);
    return constant('int', Number.isSafeInteger(n) ? n : BigInt(text));
  }
  const type: StaticType = t.tag === 'M' ? 'dec' : t.tag === 'D' || t.tag === 'F' || /[eE]/.test(text) ? 'dbl' : 'dec';
  return constant(type, Number(text));
}

/** Parses one literal of a key predicate (`1`, `'A'`, `5L`, guid) to its static type and value. */
export function parseLiteral(text: string, version: ODataVersion): { type: StaticType; value: Value } {
  const tokens = tokenize(text, version, 'key predicate');
  const [first, second, third] = tokens;
  const literalKinds = new Set(['string', 'number', 'guid', 'date', 'datetime']);
  const ok = (first && literalKinds.has(first.kind) && second?.kind === 'end') ||
    (first?.kind === 'ident' && ['true', 'false', 'null'].includes(first.text) && second?.kind === 'end') ||
    (first?.kind === 'minus' && second?.kind === 'number' && third?.kind === 'end');
  if (!ok) throw badRequest(`Invalid key literal '${text}'`, 'key predicate');
  const ctx: ExprContext = { set: ENTITY_SETS.get('Categories') as EntitySetDef, version, sizes: { products: 0 } };
  const expr = new Parser(text, ctx, 'key predicate').or();
  return { type: expr.type, value: expr.ev([]) };
}
