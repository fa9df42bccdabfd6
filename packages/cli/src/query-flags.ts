import type { ODataClient, Query } from '@sluice/odata';
import { UsageError } from './errors.js';

/** Query flags of `export`, `count` and `url`. */
export interface QueryFlags {
  filter?: string;
  select?: string;
  expand?: string;
  orderby?: string;
  top?: number;
  skip?: number;
  search?: string;
  param?: string[];
}

/** Splits a comma-separated list, trimming items and dropping empty ones. */
export function list(text: string | undefined): string[] {
  return (text ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** The query the flags describe on `entitySet`: `$filter` is sent as written, the rest is checked. */
export function buildQuery(od: ODataClient, entitySet: string, flags: QueryFlags): Query {
  let query = od.from(entitySet);
  if (flags.filter !== undefined) query = query.filter(flags.filter);
  const select = list(flags.select);
  if (select.length) query = query.select(...select);
  for (const nav of list(flags.expand)) query = query.expand(nav);
  const orderBy = list(flags.orderby);
  if (orderBy.length) query = query.orderBy(...orderBy);
  if (flags.top !== undefined) query = query.top(flags.top);
  if (flags.skip !== undefined) query = query.skip(flags.skip);
  if (flags.search !== undefined) query = query.search(flags.search);
  for (const pair of flags.param ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--param expects name=value, got ${JSON.stringify(pair.slice(0, 40))}`, 'for example --param sap-client=100');
    query = query.param(pair.slice(0, eq), pair.slice(eq + 1));
  }
  return query;
}

/** Splits `a=1,b='x,y'` at the commas outside single quotes. */
function splitOutsideQuotes(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") quoted = !quoted;
    else if (text[i] === ',' && !quoted) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/**
 * One key value as typed on the command line: `'A'` is a string (`''` inside is a quote), a bare
 * integer is a number unless `typed` (the service's `$metadata` is loaded and decides), anything else a string.
 */
function keyValue(text: string, typed: boolean): string | number {
  const t = text.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replace(/''/g, "'");
  if (!typed && /^-?\d{1,15}$/.test(t)) return Number(t);
  return t;
}

/** A key argument: `42`, `'A'` or `OrderID=1,ItemNo='A'` for a composite key. */
export function parseKey(text: string, typed: boolean): string | number | Record<string, string | number> {
  if (text.trim() === '') throw new UsageError('the key is empty', "for example 42, 'A' or OrderID=1,ItemNo='A'");
  const parts = splitOutsideQuotes(text);
  const named = parts.map((p) => /^\s*([A-Za-z_][\w]*)\s*=(.*)$/s.exec(p));
  if (named.every((m) => m !== null) && !(parts.length === 1 && text.trim().startsWith("'"))) {
    return Object.fromEntries(named.map((m) => [m![1]!, keyValue(m![2]!, typed)]));
  }
  if (parts.length > 1) throw new UsageError(`cannot read the key ${JSON.stringify(text.slice(0, 60))}`, "a composite key names its parts: OrderID=1,ItemNo='A'");
  return keyValue(text, typed);
}
