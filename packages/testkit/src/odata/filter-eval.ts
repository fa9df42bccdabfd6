// Runtime semantics of OData expressions: comparison, arithmetic and the built-in functions, with
// null propagation (OData v4.01 URL Conventions 5.1.1: operators and functions on null yield null).
import { badRequest } from './errors.js';
import { DateValue, type Value } from './model.js';

/** Static type of an expression, enough to refuse mismatched operands with a 400. */
export type StaticType = 'int' | 'dec' | 'dbl' | 'str' | 'bool' | 'date' | 'guid' | 'null';

/** Whether a static type is numeric. */
export function isNumeric(t: StaticType): boolean {
  return t === 'int' || t === 'dec' || t === 'dbl';
}

/** Orders two non-null values of comparable types: negative, zero or positive. */
export function compare(a: Value, b: Value): number {
  if (a instanceof DateValue && b instanceof DateValue) return a.ms - b.ms;
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
    const n = (typeof a === 'bigint' ? b : a) as number;
    if (Number.isInteger(n)) {
      const x = BigInt(a as number | bigint);
      const y = BigInt(b as number | bigint);
      return x < y ? -1 : x > y ? 1 : 0;
    }
    return Number(a) - Number(b);
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const x = String(a);
  const y = String(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Ordering used by $orderby: nulls first ascending (OData v4.01 URL Conventions 5.1.5). */
export function compareForSort(a: Value, b: Value): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compare(a, b);
}

/** Applies add, sub, mul, div or mod; integer operands keep integer semantics (div truncates). */
export function arithmetic(op: string, a: Value, b: Value, integral: boolean): Value {
  if (a === null || b === null) return null;
  if (a instanceof DateValue || b instanceof DateValue) throw badRequest(`Operator ${op} is not supported on dates`, '$filter');
  if (integral && (typeof a === 'bigint' || typeof b === 'bigint')) {
    const x = BigInt(a as number | bigint);
    const y = BigInt(b as number | bigint);
    if ((op === 'div' || op === 'mod') && y === 0n) return null;
    const r = op === 'add' ? x + y : op === 'sub' ? x - y : op === 'mul' ? x * y : op === 'div' ? x / y : x % y;
    return Number.isSafeInteger(Number(r)) ? Number(r) : r;
  }
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case 'add': return x + y;
    case 'sub': return x - y;
    case 'mul': return x * y;
    case 'div': return integral ? (y === 0 ? null : Math.trunc(x / y)) : x / y;
    default: return y === 0 ? null : x % y;
  }
}

/** A built-in function: its result type, arity range and implementation. */
export interface FunctionDef {
  readonly result: StaticType;
  readonly args: readonly StaticType[];
  readonly optional?: number;
  call(args: Value[]): Value;
}

const s = (v: Value | undefined): string => v as string;
const d = (v: Value | undefined): Date => new Date((v as DateValue).ms);

/** Built-in functions common to v2 and v4 (v4.01 URL Conventions 5.1.1.7, 5.1.1.8, 5.1.1.9). */
export const FUNCTIONS: Readonly<Record<string, FunctionDef>> = {
  startswith: { result: 'bool', args: ['str', 'str'], call: ([a, b]) => s(a).startsWith(s(b)) },
  endswith: { result: 'bool', args: ['str', 'str'], call: ([a, b]) => s(a).endsWith(s(b)) },
  indexof: { result: 'int', args: ['str', 'str'], call: ([a, b]) => s(a).indexOf(s(b)) },
  length: { result: 'int', args: ['str'], call: ([a]) => s(a).length },
  tolower: { result: 'str', args: ['str'], call: ([a]) => s(a).toLowerCase() },
  toupper: { result: 'str', args: ['str'], call: ([a]) => s(a).toUpperCase() },
  trim: { result: 'str', args: ['str'], call: ([a]) => s(a).trim() },
  concat: { result: 'str', args: ['str', 'str'], call: ([a, b]) => s(a) + s(b) },
  substring: {
    result: 'str', args: ['str', 'int', 'int'], optional: 1,
    call: ([a, b, c]) => (c === undefined ? s(a).slice(Number(b)) : s(a).slice(Number(b), Number(b) + Number(c))),
  },
  year: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCFullYear() },
  month: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCMonth() + 1 },
  day: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCDate() },
  hour: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCHours() },
  minute: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCMinutes() },
  second: { result: 'int', args: ['date'], call: ([a]) => d(a).getUTCSeconds() },
  round: { result: 'dbl', args: ['dbl'], call: ([a]) => Math.round(Number(a)) },
  floor: { result: 'dbl', args: ['dbl'], call: ([a]) => Math.floor(Number(a)) },
  ceiling: { result: 'dbl', args: ['dbl'], call: ([a]) => Math.ceil(Number(a)) },
};

/** Functions only v4 knows. */
export const V4_FUNCTIONS: Readonly<Record<string, FunctionDef>> = {
  contains: { result: 'bool', args: ['str', 'str'], call: ([a, b]) => s(a).includes(s(b)) },
};

/** Functions only v2 knows: substringof(needle, haystack) (MS-ODATA 2.2.3.6.1.1.2). */
export const V2_FUNCTIONS: Readonly<Record<string, FunctionDef>> = {
  substringof: { result: 'bool', args: ['str', 'str'], call: ([a, b]) => s(b).includes(s(a)) },
};
