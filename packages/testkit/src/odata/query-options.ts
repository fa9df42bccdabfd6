// Parses a request's query string into OData system query options and custom options (OData v4.01
// URL Conventions section 5; v2: MS-ODATA 2.2.3.6.1), refusing unknown or malformed system options.
import { badRequest } from './errors.js';
import type { ODataVersion } from './model.js';

/** A `name=value` pair as sent (raw) and decoded. */
export interface QueryPair {
  readonly raw: string;
  readonly name: string;
  readonly value: string;
}

/** The query options of one request. */
export interface QueryOptions {
  filter?: string;
  select?: string;
  expand?: string;
  orderby?: string;
  top?: number;
  skip?: number;
  /** `$count=true` (v4) or `$inlinecount=allpages` (v2). */
  count: boolean;
  search?: string;
  /** Rows of the result already delivered on earlier pages. */
  skiptoken?: number;
  format?: string;
  /** Every pair in request order, for rebuilding next links. */
  readonly pairs: readonly QueryPair[];
}

const V4_OPTIONS = new Set(['$filter', '$select', '$expand', '$orderby', '$top', '$skip', '$count', '$search', '$skiptoken', '$format']);
const V2_OPTIONS = new Set(['$filter', '$select', '$expand', '$orderby', '$top', '$skip', '$inlinecount', '$search', '$skiptoken', '$format']);

/** Decodes a percent-encoded component; a malformed escape is a 400. `+` stays a plus sign (RFC 3986). */
export function decodeComponent(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw badRequest(`Malformed percent-encoding in ${what}`, what);
  }
}

/** Parses the query string (without `?`) of a request to a v4 or v2 service. */
export function parseQuery(search: string, version: ODataVersion): QueryOptions {
  const pairs: QueryPair[] = [];
  const opts: QueryOptions = { count: false, pairs };
  const seen = new Set<string>();
  const known = version === 4 ? V4_OPTIONS : V2_OPTIONS;
  for (const raw of search.split('&')) {
    if (raw === '') continue;
    const eq = raw.indexOf('=');
    const rawName = eq < 0 ? raw : raw.slice(0, eq);
    const name = decodeComponent(rawName, 'query option name');
    const value = decodeComponent(eq < 0 ? '' : raw.slice(eq + 1), name);
    pairs.push({ raw, name, value });
    if (!name.startsWith('$')) {
      // SAP gateway's free-text search is the custom option `search`
      if (version === 2 && name === 'search') opts.search = value;
      continue;
    }
    // a percent-encoded '$' is not the same character (RFC 3986 2.2): make the mistake visible
    if (!rawName.startsWith('$')) throw badRequest(`System query option '${name}' must be written with a literal '$', not '${rawName}'`, name);
    if (!known.has(name)) throw badRequest(`Unknown system query option '${name}' for OData ${version === 4 ? 'v4' : 'v2'}`, name);
    if (seen.has(name)) throw badRequest(`System query option '${name}' given twice`, name);
    seen.add(name);
    applyOption(opts, name, value);
  }
  return opts;
}

function applyOption(opts: QueryOptions, name: string, value: string): void {
  switch (name) {
    case '$filter': opts.filter = nonEmpty(value, name); break;
    case '$select': opts.select = nonEmpty(value, name); break;
    case '$expand': opts.expand = nonEmpty(value, name); break;
    case '$orderby': opts.orderby = nonEmpty(value, name); break;
    case '$search': opts.search = nonEmpty(value, name); break;
    case '$format': opts.format = value; break;
    case '$top': opts.top = nonNegative(value, name); break;
    case '$skip': opts.skip = nonNegative(value, name); break;
    case '$skiptoken': opts.skiptoken = nonNegative(value, name); break;
    case '$count':
      if (value !== 'true' && value !== 'false') throw badRequest(`$count must be true or false, got '${value}'`, name);
      opts.count = value === 'true';
      break;
    case '$inlinecount':
      if (value !== 'allpages' && value !== 'none') throw badRequest(`$inlinecount must be allpages or none, got '${value}'`, name);
      opts.count = value === 'allpages';
      break;
  }
}

/** Parses a non-negative integer option value. */
export function nonNegative(value: string, name: string): number {
  if (!/^\d{1,15}$/.test(value)) throw badRequest(`${name} must be a non-negative integer, got '${value}'`, name);
  return Number(value);
}

function nonEmpty(value: string, name: string): string {
  if (value.trim() === '') throw badRequest(`${name} must not be empty`, name);
  return value;
}

/** Splits at `sep` outside parentheses and single-quoted strings (for $expand and nested options). */
export function splitTopLevel(text: string, sep: string): string[] {
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
    else if (c === sep && depth === 0) { parts.push(text.slice(start, i)); start = i + 1; }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim());
}
