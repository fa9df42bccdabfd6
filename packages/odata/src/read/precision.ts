import type { EventSink, SluiceResponse } from '@sluice/core';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { ODataVersion } from '../protocol/types.js';
import { quoteExactNumbers } from './exact-numbers.js';

declare module '@sluice/core' {
  interface SluiceEventMap {
    /**
     * The service answers Int64/Decimal in a form that `JSON.parse` would round: its JSON content type
     * lacks `IEEE754Compatible=true` although sluice asked for it (`reason: 'content-type'`), or a
     * property `$metadata` declares Int64/Decimal arrived as a JSON number (`reason: 'number'`). From then
     * on the client reads such numbers from their digits (exact, a little slower). Reported once per client
     * and reason.
     */
    'odata.precision.unsafe': { reason: 'content-type' | 'number'; detail: string };
  }
}

const IEEE754 = /IEEE754Compatible=true/i;
const LARGE_TYPES = new Set(['Edm.Int64', 'Edm.Decimal']);
const largeByType = new WeakMap<EntityTypeInfo, ReadonlySet<string>>();

/** Names of the Int64 and Decimal properties of an entity type (cached). */
export function largeProperties(type: EntityTypeInfo | undefined): ReadonlySet<string> | undefined {
  if (type === undefined) return undefined;
  let names = largeByType.get(type);
  if (names === undefined) {
    const found = new Set<string>();
    for (const [name, prop] of type.properties) if (LARGE_TYPES.has(prop.type)) found.add(name);
    names = found;
    largeByType.set(type, names);
  }
  return names;
}

/**
 * One per OData client: decides, per response, whether numbers must be read from their digits, and
 * reports once when a service does not keep Int64/Decimal exact. Only v4 with `largeNumbers: 'string'`
 * needs it (v2 verbose JSON always sends both as strings).
 */
export class PrecisionGuard {
  private readonly reported = new Set<string>();
  /** A declared Int64/Decimal arrived as a number although the content type promised strings. */
  private numbersSeen = false;

  constructor(private readonly events: EventSink, private readonly largeNumbers: 'string' | 'number') {}

  /** Whether the numbers of this response must be read exactly (see `quoteExactNumbers`). */
  exactFor(response: SluiceResponse, version: ODataVersion): boolean {
    return this.exactForType(response.headers.get('content-type'), version);
  }

  /** Whether the numbers of a body of this content type (a response's, a batch part's) must be read exactly. */
  exactForType(contentType: string | null | undefined, version: ODataVersion): boolean {
    if (this.largeNumbers !== 'string' || version !== '4.0') return false;
    const type = contentType ?? '';
    if (IEEE754.test(type)) return this.numbersSeen;
    this.report('content-type', `the answer's content type (${type || 'none'}) lacks IEEE754Compatible=true although it was asked for: Int64 and Decimal values are read from their digits`);
    return true;
  }

  /**
   * Checks one record read without the exact path (the first of each page): a declared Int64/Decimal
   * property holding a JSON number means the service ignores IEEE754Compatible; later answers are read
   * exactly and the event says which property.
   */
  checkRecord(record: unknown, type: EntityTypeInfo | undefined): void {
    if (this.numbersSeen || this.largeNumbers !== 'string' || record === null || typeof record !== 'object') return;
    const names = largeProperties(type);
    if (names === undefined || names.size === 0) return;
    for (const name of names) {
      if (typeof (record as Record<string, unknown>)[name] === 'number') {
        this.numbersSeen = true;
        this.report('number', `${type!.name}.${name} (${type!.properties.get(name)!.type}) arrived as a JSON number: the service ignores IEEE754Compatible=true, values above 2^53 and long Decimals may have been rounded in this answer; later answers are read exactly`);
        return;
      }
    }
  }

  /**
   * Parses a JSON body that is not a collection page (a write's or an action's answer, a batch part, a
   * delta page) as reads are parsed: from the digits when {@link exactForType} says so, the declared
   * Int64/Decimal properties (`names`, default those of `type`) of the entity (`shape: 'entity'`) or of the
   * records of its `value` array (`'collection'`) becoming exact strings, and any integer a double cannot
   * hold; else plainly, its first record checked as {@link checkRecord} does. Throws SyntaxError as
   * `JSON.parse` does.
   */
  parseBody(text: string, contentType: string | null | undefined, version: ODataVersion, type: EntityTypeInfo | undefined, shape: 'entity' | 'collection', names = largeProperties(type)): unknown {
    if (this.exactForType(contentType, version)) return JSON.parse(quoteExactNumbers(text, shape === 'entity' ? 1 : 3, names));
    const body: unknown = JSON.parse(text);
    if (version === '4.0') {
      const value = shape === 'entity' ? body : (body as { value?: unknown } | null)?.value;
      this.checkRecord(Array.isArray(value) ? value[0] : value, type);
    }
    return body;
  }

  private report(reason: 'content-type' | 'number', detail: string): void {
    if (this.reported.has(reason)) return;
    this.reported.add(reason);
    this.events.emit('odata.precision.unsafe', { reason, detail });
  }
}
