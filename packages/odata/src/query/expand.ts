import { ConfigError } from '@sluice/core';
import { Expr, FilterBuilder, type RenderContext } from './filter.js';
import { checkPath } from './names.js';
import { checkOrderBy, checkSelect, checkCount } from './options.js';

/**
 * Options nested in one `$expand` item (OData v4 only: `Category($select=Name;$expand=…)`); v2 services
 * accept only flat paths and reject these with ODataVersionError.
 *
 * @example
 * ```ts
 * od.from('Categories').expand('Products', { select: ['Name'], filter: (f) => f.gt('Price', 10), top: 5 })
 * ```
 */
export interface ExpandOptions {
  select?: readonly string[] | undefined;
  filter?: string | Expr | ((f: FilterBuilder) => Expr) | undefined;
  orderBy?: readonly string[] | undefined;
  top?: number | undefined;
  skip?: number | undefined;
  count?: boolean | undefined;
  /** Further expansions of the expanded entity: paths, or paths with their own options. */
  expand?: readonly string[] | Readonly<Record<string, ExpandOptions | true>> | undefined;
}

/** One `$expand` item: a navigation path and optional nested options. */
export interface ExpandItem {
  path: string;
  options: ExpandOptions | undefined;
}

/** Validates an expand item at once, so mistakes surface where the query is written. */
export function makeExpandItem(path: string, options: ExpandOptions | undefined): ExpandItem {
  if (path !== '*') checkPath(path, 'expand');
  if (options !== undefined) {
    if (typeof options !== 'object' || options === null) throw new ConfigError('expand options', 'must be an object');
    if (options.select) options.select.forEach((s) => checkSelect(s));
    if (options.orderBy) options.orderBy.forEach((o) => checkOrderBy(o));
    if (options.top !== undefined) checkCount(options.top, 'expand top');
    if (options.skip !== undefined) checkCount(options.skip, 'expand skip');
  }
  return { path, options };
}

function nestedItems(expand: ExpandOptions['expand']): ExpandItem[] {
  if (expand === undefined) return [];
  if (Array.isArray(expand)) return (expand as readonly string[]).map((p) => makeExpandItem(p, undefined));
  return Object.entries(expand as Record<string, ExpandOptions | true>).map(([p, o]) => makeExpandItem(p, o === true ? undefined : o));
}

/** Renders `$expand` items; nested options go through the protocol (v2 refuses them). */
export function renderExpand(items: readonly ExpandItem[], ctx: RenderContext, base?: string): string {
  return items.map((item) => {
    const o = item.options;
    if (o === undefined) return item.path;
    const parts: string[] = [];
    const typeBase = base === undefined ? item.path : `${base}/${item.path}`;
    if (o.filter !== undefined) {
      const expr = typeof o.filter === 'function' ? o.filter(new FilterBuilder(undefined, typeBase)) : o.filter;
      parts.push(`$filter=${typeof expr === 'string' ? expr : expr.render(ctx)}`);
    }
    if (o.select?.length) parts.push(`$select=${o.select.join(',')}`);
    const nested = nestedItems(o.expand);
    if (nested.length) parts.push(`$expand=${renderExpand(nested, ctx, typeBase)}`);
    if (o.orderBy?.length) parts.push(`$orderby=${o.orderBy.join(',')}`);
    if (o.top !== undefined) parts.push(`$top=${o.top}`);
    if (o.skip !== undefined) parts.push(`$skip=${o.skip}`);
    if (o.count) parts.push(`$count=true`);
    return ctx.protocol.nestedExpand(item.path, parts);
  }).join(',');
}
