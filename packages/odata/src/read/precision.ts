import type { EventSink, SluiceResponse } from '@sluice/core';
import type { EntityTypeInfo } from '../metadata/model.js';
import type { ODataVersion } from '../protocol/types.js';

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
    if (this.largeNumbers !== 'string' || version !== '4.0') return false;
    const type = response.headers.get('content-type') ?? '';
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

  private report(reason: 'content-type' | 'number', detail: string): void {
    if (this.reported.has(reason)) return;
    this.reported.add(reason);
    this.events.emit('odata.precision.unsafe', { reason, detail });
  }
}
