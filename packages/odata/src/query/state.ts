import { ConfigError, encodePathSegment, encodeQueryComponent } from '@sluice/core';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { ExpandItem } from './expand.js';
import type { Expr } from './filter.js';
import { namedLiteral, TypedValue, wellFormed, type LiteralValue } from './literal.js';
import { checkIdentifier } from './names.js';
import type { SearchExpr } from './search.js';

/** A key: one value, or property names to values for a composite key (`{ OrderID: 1, ItemNo: 'A' }`). */
export type KeyValue = LiteralValue | Readonly<Record<string, LiteralValue>>;

/**
 * Per-call options of every read (`get`, `list`, `stream`, `pages`, `countOnly`): they apply to each
 * request the read sends, next-link pages included.
 */
export interface ReadOptions {
  /** Cancels the read and every request it sends. */
  signal?: AbortSignal | undefined;
  /** Headers for this read's requests; they win over the client's (not over `Accept`/version headers). */
  headers?: Readonly<Record<string, string>> | undefined;
  /** Per-attempt timeout in ms for this read's requests (the core's `timeout`), or false. */
  timeout?: number | false | undefined;
  /**
   * Total time for the whole read (every page, attempt, retry wait and body): ms from the start of the
   * read, an absolute `Date`, or false to lift the client's. Past it the read ends with the core's
   * `DeadlineError` (a page is never resumed after it).
   */
  deadline?: number | Date | false | undefined;
}

/** One path segment after the entity set: a key predicate or a navigation property. @internal */
export type Segment = { kind: 'key'; key: KeyValue } | { kind: 'nav'; name: string };

/** The immutable state every query class shares. @internal */
export interface QueryState {
  readonly set: string;
  readonly segments: readonly Segment[];
  readonly filters: readonly (string | Expr)[];
  readonly select: readonly string[];
  readonly expand: readonly ExpandItem[];
  readonly orderBy: readonly string[];
  readonly top: number | undefined;
  readonly skip: number | undefined;
  readonly count: boolean;
  readonly search: string | SearchExpr | undefined;
  readonly params: readonly (readonly [string, string])[];
}

/** The state of a fresh query on an entity set or singleton. @internal */
export function initialState(set: string): QueryState {
  return { set, segments: [], filters: [], select: [], expand: [], orderBy: [], top: undefined, skip: undefined, count: false, search: undefined, params: [] };
}

/** Encodes a query option value: core's encoding (`%20`, never `+`), with `=` kept as OData's EQ needs. */
export function encodeOptionValue(value: string): string {
  // OData ABNF: EQ = "=" literally, as in nested $expand options ($select=Name).
  return encodeQueryComponent(wellFormed(value, 'query option')).replace(/%3D/g, '=');
}

/** Whether a key is a composite-key record rather than a single value. @internal */
export function isKeyRecord(key: KeyValue): key is Readonly<Record<string, LiteralValue>> {
  return typeof key === 'object' && key !== null && !(key instanceof Date) && !(key instanceof TypedValue);
}

/** Checks a key value and returns it as a path segment. @internal */
export function keySegment(value: KeyValue): Segment {
  if (value === undefined) throw new ConfigError('key', 'must be a value or an object of key properties');
  if (isKeyRecord(value)) {
    if (Object.keys(value).length === 0) throw new ConfigError('key', 'must name at least one property');
    for (const name of Object.keys(value)) checkIdentifier(name, 'key property');
  }
  return { kind: 'key', key: value };
}

/** The key predicate `('A')` / `(A=1,B='x')` of a key, its literals typed by `type` when known. @internal */
export function keyPredicate(protocol: ODataProtocol, key: KeyValue, type: EntityTypeInfo | undefined): string {
  const typeOf = (name: string | undefined): string | undefined => {
    const prop = name ?? (type?.key.length === 1 ? type.key[0] : undefined);
    return prop === undefined ? undefined : type?.properties.get(prop)?.type;
  };
  const literal = (value: LiteralValue, name: string | undefined): string => {
    const prop = name ?? (type?.key.length === 1 ? type.key[0] : undefined);
    return encodePathSegment(protocol.formatLiteral(namedLiteral(value, typeOf(name), prop === undefined ? 'key' : `key property ${prop}`)));
  };
  if (!isKeyRecord(key)) return `(${literal(key, undefined)})`;
  const names = Object.keys(key);
  // OData 4.0 Part 2 section 4.3.1: composite keys are name=value pairs, in any order.
  return `(${names.map((n) => `${n}=${literal(key[n] as LiteralValue, n)}`).join(',')})`;
}
