import type { Literal } from '../query/literal.js';
import type { DecodeContext } from './decode-context.js';
import type { WriteProtocol } from './write.js';

export type { DecodeContext } from './decode-context.js';

/** OData protocol versions sluice speaks. */
export type ODataVersion = '2.0' | '4.0';

/** Next link and count read from a page's envelope. */
export interface PageInfo {
  nextLink: string | undefined;
  count: number | undefined;
  /** The page's context URL (v4 `@odata.context`), which relative next links are resolved against. */
  context?: string | undefined;
  /** Set when the envelope has a next link that is not a string (its JSON type): paging cannot go on. */
  invalidNextLink?: string | undefined;
  /** The delta link as sent (v4 `@odata.deltaLink`/`@deltaLink`, v2 `d.__delta`): the last page of a change-tracking read. */
  deltaLink?: string | undefined;
}

/**
 * Everything that differs between OData v2 and v4, behind one interface (see ARCHITECTURE.md "Shape of
 * the OData client"): query building, streaming and paging ask it and never branch on the version.
 * Later work adds its members here (update method MERGE/PATCH and ETag header reading for writes, the
 * action/function call shape, batch content types, delta links), each implemented in `v2/` and `v4/`.
 */
export interface ODataProtocol {
  readonly version: ODataVersion;

  /** Writes a literal as this version spells it (`guid'…'` vs bare, `123L` vs `123`, …). */
  formatLiteral(literal: Literal): string;
  /** The query option that asks for the total count inline: `$count=true` or `$inlinecount=allpages`. */
  readonly countOption: readonly [name: string, value: string];
  /** The query option for a free-text search: v4 `$search="text"`; v2 has none, so SAP Gateway's `search=text`. */
  searchOption(text: string): readonly [name: string, value: string];
  /** The query option for a built `$search` expression (`blue AND NOT red`): v4 `$search`, v2 SAP's `search`. */
  searchExpression(expression: string): readonly [name: string, value: string];
  /** `Nav(<options>)` for a nested expand; v2 throws ODataVersionError. */
  nestedExpand(path: string, options: readonly string[]): string;
  /** A built-in function call such as `contains(Name,'x')` (v2: `substringof('x',Name)`). */
  call(name: string, args: readonly string[]): string;
  /** `Prop in (a,b)` in v4; an `or` chain in v2. */
  inList(left: string, items: readonly string[]): string;
  /** `Nav/any(x:…)`; v2 throws ODataVersionError. */
  lambda(path: string, op: 'any' | 'all', variable: string | undefined, body: string | undefined): string;

  /** Headers every read sends (Accept with its parameters, version negotiation). */
  requestHeaders(largeNumbers: 'string' | 'number', maxPageSize?: number): Record<string, string>;
  /** Key paths from the response root to a collection's record array, tried in order. */
  readonly recordPaths: readonly (readonly string[])[];
  /** Next link and count of a collection page, from its envelope (the body without the records). */
  pageInfo(envelope: Record<string, unknown>): PageInfo;
  /** One record of a collection into the common shape; absent when records arrive in it already. */
  decodeRecord?(raw: unknown, ctx: DecodeContext): unknown;
  /** A single-entity response body into the common shape. */
  decodeEntity(body: unknown, ctx: DecodeContext): unknown;
  /** The version a response declares in its headers, if any. */
  readonly versionHeader: string;
  /** Writing: value spelling, update method, `Prefer`, operation calls. */
  readonly write: WriteProtocol;
}
