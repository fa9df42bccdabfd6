// Compiles $select and $expand (v4 nested options, v2 flat paths) into what the serializers render.
import { badRequest } from './errors.js';
import { compileFilter, compileOrderBy, type OrderItem } from './filter-parser.js';
import { ENTITY_SETS, type EntitySetDef, type NavDef, type ODataVersion, type PropertyDef, type SetSizes } from './model.js';
import { nonNegative, splitTopLevel } from './query-options.js';

/** Which properties and navigations of an entity set a response renders. */
export interface Projection {
  readonly set: EntitySetDef;
  readonly props: readonly PropertyDef[];
  /** Whether $select narrowed the properties (for the v4 context URL). */
  readonly selected: boolean;
  /** Navigation properties rendered as v2 `__deferred` links (those selected and not expanded). */
  readonly deferred: readonly NavDef[];
  readonly expands: readonly ExpandPlan[];
}

/** One expanded navigation property with its nested options. */
export interface ExpandPlan {
  readonly nav: NavDef;
  readonly projection: Projection;
  readonly filter?: (row: unknown) => boolean;
  readonly orderby?: OrderItem[];
  readonly top?: number;
  readonly skip?: number;
  readonly count: boolean;
  readonly search?: string;
}

interface ExpandRequest {
  nav: NavDef;
  /** v4 nested options text or v2 sub-paths. */
  options: Record<string, string>;
  subPaths: string[];
  subSelect: string[];
}

/** Compiles `$select` and `$expand` for `set`. */
export function compileProjection(
  set: EntitySetDef, select: string | undefined, expand: string | undefined, version: ODataVersion, sizes: SetSizes,
): Projection {
  const expandRequests = new Map<string, ExpandRequest>();
  if (expand !== undefined) {
    for (const item of splitTopLevel(expand, ',')) parseExpandItem(set, item, version, expandRequests);
  }
  const names = { properties: set.properties.map((p) => p.name), navs: set.navs.map((n) => n.name) };
  const selection = selectedNames(select, set.typeName, names, version, (nav) => expandRequests.get(nav)?.subSelect);
  const props = selection ? set.properties.filter((p) => selection.properties.has(p.name)) : [...set.properties];
  const expands: ExpandPlan[] = [];
  for (const req of expandRequests.values()) expands.push(compileExpand(req, version, sizes));
  const deferred = set.navs.filter((n) => (selection?.navs.has(n.name) ?? true) && !expandRequests.has(n.name));
  return { set, props, selected: selection !== undefined, deferred, expands };
}

/** The property and navigation property names `$select` keeps. */
export interface SelectedNames {
  readonly properties: ReadonlySet<string>;
  readonly navs: ReadonlySet<string>;
}

/**
 * What `$select` keeps of an entity type with these property and navigation property names: undefined when
 * it keeps everything (no `$select`, or `*` in it). A v2 `Nav/Prop` path (MS-ODATA 2.2.3.6.1.11) selects the
 * navigation property and its `Prop` goes into `subSelect(nav)`, the expanded navigation's own select list
 * (undefined when `nav` is not expanded: a 400, as is such a path in v4 and an unknown name).
 */
export function selectedNames(
  select: string | undefined, typeName: string, names: { properties: readonly string[]; navs: readonly string[] }, version: ODataVersion,
  subSelect: (nav: string) => string[] | undefined,
): SelectedNames | undefined {
  if (select === undefined) return undefined;
  const items = select.split(',').map((s) => s.trim());
  if (items.includes('*')) return undefined;
  const properties = new Set<string>();
  const navs = new Set<string>();
  for (const item of items) {
    const [head = '', ...rest] = item.split('/');
    if (rest.length === 0 && names.properties.includes(head)) properties.add(head);
    else if (names.navs.includes(head)) {
      navs.add(head);
      if (rest.length === 0) continue;
      const into = version === 2 ? subSelect(head) : undefined;
      if (into === undefined) throw badRequest(`$select path '${item}' needs $expand=${head}`, '$select');
      into.push(rest.join('/'));
    } else throw badRequest(`Unknown property '${item}' in $select for ${typeName}`, '$select');
  }
  return { properties, navs };
}

function parseExpandItem(set: EntitySetDef, item: string, version: ODataVersion, out: Map<string, ExpandRequest>): void {
  const open = item.indexOf('(');
  const path = (open < 0 ? item : item.slice(0, open)).trim();
  const [head = '', ...rest] = path.split('/');
  const nav = set.navs.find((n) => n.name === head);
  if (!nav) throw badRequest(`Unknown navigation property '${head}' in $expand for ${set.typeName}`, '$expand');
  const req = out.get(head) ?? { nav, options: {}, subPaths: [], subSelect: [] };
  out.set(head, req);
  if (rest.length > 0) {
    if (version === 4) throw badRequest(`Use nested $expand instead of the path '${path}' in OData v4`, '$expand');
    req.subPaths.push(rest.join('/'));
  }
  if (open < 0) return;
  if (version === 2) throw badRequest('OData v2 has no nested $expand options', '$expand');
  if (!item.endsWith(')')) throw badRequest(`Unbalanced parentheses in $expand item '${item}'`, '$expand');
  for (const opt of splitTopLevel(item.slice(open + 1, -1), ';')) {
    if (opt === '') continue;
    const eq = opt.indexOf('=');
    const name = eq < 0 ? opt : opt.slice(0, eq);
    if (!['$select', '$expand', '$filter', '$orderby', '$top', '$skip', '$count', '$search'].includes(name)) {
      throw badRequest(`Unsupported option '${name}' inside $expand=${head}(...)`, '$expand');
    }
    req.options[name] = eq < 0 ? '' : opt.slice(eq + 1);
  }
}

function compileExpand(req: ExpandRequest, version: ODataVersion, sizes: SetSizes): ExpandPlan {
  const target = ENTITY_SETS.get(req.nav.target) as EntitySetDef;
  const o = req.options;
  const select = version === 2 ? (req.subSelect.length > 0 ? req.subSelect.join(',') : undefined) : o.$select;
  const expand = version === 2 ? (req.subPaths.length > 0 ? req.subPaths.join(',') : undefined) : o.$expand;
  const projection = compileProjection(target, select, expand, version, sizes);
  const ctx = { set: target, version, sizes };
  if (!req.nav.many && (o.$filter ?? o.$orderby ?? o.$top ?? o.$skip ?? o.$count) !== undefined) {
    throw badRequest(`Collection options are not allowed when expanding the single-valued ${req.nav.name}`, '$expand');
  }
  return {
    nav: req.nav,
    projection,
    count: o.$count === 'true',
    ...(o.$filter !== undefined ? { filter: compileFilter(o.$filter, ctx) } : {}),
    ...(o.$orderby !== undefined ? { orderby: compileOrderBy(o.$orderby, ctx) } : {}),
    ...(o.$top !== undefined ? { top: nonNegative(o.$top, '$top') } : {}),
    ...(o.$skip !== undefined ? { skip: nonNegative(o.$skip, '$skip') } : {}),
    ...(o.$search !== undefined ? { search: o.$search } : {}),
  };
}
