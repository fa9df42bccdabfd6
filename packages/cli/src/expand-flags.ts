// `--expand` with nested options (`author($select=name;$expand=books($top=5))`, OData v4) and `--select`
// paths through an expanded navigation property (`author/name`), which become CSV columns.
import type { ExpandOptions, ODataVersion } from '@sluice/odata';
import { UsageError } from './errors.js';

/** One `--expand` item: a navigation path and the options written in parentheses after it. */
export interface ExpandFlag {
  path: string;
  options: ExpandOptions | undefined;
}

/**
 * Splits `text` at `sep` outside parentheses and single-quoted strings (`''` inside is a quote), trimming
 * the parts and dropping empty ones; `what` names the argument in the error of an unbalanced one.
 */
export function splitTopLevel(text: string, sep: string, what = '--expand'): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") quoted = !quoted;
    else if (quoted) continue;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === sep && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
    if (depth < 0) throw new UsageError(`${what} has a ")" without "(": ${JSON.stringify(text.slice(0, 80))}`);
  }
  if (depth !== 0 || quoted) throw new UsageError(`${what} has an unclosed ${quoted ? 'quote' : '"("'}: ${JSON.stringify(text.slice(0, 80))}`);
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter(Boolean);
}

const list = (text: string): string[] => splitTopLevel(text, ',');

function count(name: string, value: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--expand ${name} expects a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** The options inside `(...)`: `$select`, `$filter`, `$orderby`, `$top`, `$skip`, `$count` and a nested `$expand`. */
function expandOptions(text: string): ExpandOptions {
  const options: { -readonly [K in keyof ExpandOptions]: ExpandOptions[K] } = {};
  for (const part of splitTopLevel(text, ';')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? '' : part.slice(eq + 1).trim();
    switch (name) {
      case '$select': options.select = list(value); break;
      case '$filter': options.filter = value; break;
      case '$orderby': options.orderBy = list(value); break;
      case '$top': options.top = count(name, value); break;
      case '$skip': options.skip = count(name, value); break;
      case '$count': options.count = value === 'true'; break;
      case '$expand': options.expand = Object.fromEntries(parseExpand(value).map((e) => [e.path, e.options ?? true])); break;
      default:
        throw new UsageError(`--expand does not take the option ${JSON.stringify(part.slice(0, 40))}`, 'nested options: $select, $filter, $orderby, $top, $skip, $count, $expand, separated by ;');
    }
  }
  return options;
}

/** `--expand`: comma-separated navigation paths, each with optional `(options)` as OData v4 writes them. */
export function parseExpand(text: string | undefined): ExpandFlag[] {
  return list(text ?? '').map((item) => {
    const open = item.indexOf('(');
    if (open < 0) return { path: item, options: undefined };
    if (!item.endsWith(')')) throw new UsageError(`--expand cannot read ${JSON.stringify(item.slice(0, 80))}`, 'write options in parentheses after the path: author($select=name;$top=5)');
    return { path: item.slice(0, open).trim(), options: expandOptions(item.slice(open + 1, -1)) };
  });
}

/**
 * `--select` with `--expand`: a path whose first step is an expanded navigation property (`author/name`
 * with `--expand author`) selects that property of the related entity. OData v4 writes it as the
 * expansion's nested `$select` (`$expand=author($select=name)`); v2 keeps it in `$select` as v2 allows.
 * Other paths (`Address/City` of a complex property) stay in `$select`.
 */
export function planSelect(select: readonly string[], expand: readonly ExpandFlag[], version: ODataVersion | undefined): { select: string[]; expand: ExpandFlag[] } {
  if (version === '2.0') return { select: [...select], expand: [...expand] };
  const top: string[] = [];
  const nested = new Map<string, string[]>();
  for (const path of select) {
    const slash = path.indexOf('/');
    const nav = slash < 0 ? undefined : expand.find((e) => e.path === path.slice(0, slash));
    if (nav === undefined) top.push(path);
    else nested.set(nav.path, [...(nested.get(nav.path) ?? []), path.slice(slash + 1)]);
  }
  return {
    select: top,
    expand: expand.map((e) => {
      const more = nested.get(e.path);
      if (more === undefined) return e;
      return { path: e.path, options: { ...e.options, select: [...(e.options?.select ?? []), ...more] } };
    }),
  };
}
