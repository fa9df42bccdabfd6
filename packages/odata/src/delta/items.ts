// The items of a delta page (OData JSON Format 4.0/4.01 section 15, and SAP Gateway's v2 form): entities,
// removals, links and nested deltas, read into DeltaChanges. Shared by DeltaSync's page reads and its
// streaming read.
import { SluiceError } from '@sluice/core';
import { entitySetOf } from '../telemetry.js';
import type { EntityTypeInfo, ServiceMetadata } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import { keyPredicate, type KeyValue } from '../query/state.js';
import { withoutControl } from '../read/control.js';
import { recordDecoder } from '../v4/values.js';

/**
 * Changes of an expanded navigation property inside a changed entity (OData JSON 4.01 `"Orders@delta": [...]`),
 * by navigation property. A removal names the related entity by its `@id` or, without one, by its `key`
 * (then `id` is built from the entity set its `@context` names, else undefined).
 */
export type DeltaRelated = Readonly<Record<string, readonly DeltaRelatedChange[]>>;

/** One change of a related entity in a nested delta (see {@link DeltaRelated}). */
export type DeltaRelatedChange =
  | { readonly kind: 'entity'; readonly value: Record<string, unknown>; readonly related?: DeltaRelated | undefined }
  | { readonly kind: 'removed'; readonly id: string | undefined; readonly key: Readonly<Record<string, unknown>> | undefined; readonly reason: string | undefined };

/**
 * One change of a delta read. A first read (no link kept yet) gives every entity as `entity`. A removal
 * has its `id` (`@id`, or, when the service names it only by its key properties as OData JSON 4.01
 * allows, built as `<EntitySet>(<key>)` relative to the service root) and its `key` when it came so.
 * An entity with nested deltas of expanded navigations has them in `related`.
 */
export type DeltaChange<T> =
  | { readonly kind: 'entity'; readonly value: T; readonly related?: DeltaRelated | undefined }
  | { readonly kind: 'removed'; readonly id: string; readonly key?: Readonly<Record<string, unknown>> | undefined; readonly reason: string | undefined }
  | { readonly kind: 'link' | 'deletedLink'; readonly source: string; readonly relationship: string; readonly target: string };

export function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** How the items of one delta level are read: the decoder, and the set and type they belong to when known. */
export interface Level {
  /** Decodes an entity of the given type as `stream()` does (Doubles' `"INF"`/`"NaN"`, dates, v2 values). */
  readonly decode: (raw: unknown, type: EntityTypeInfo | undefined) => unknown;
  readonly protocol: ODataProtocol;
  readonly metadata: ServiceMetadata | undefined;
  /** The entity set of this level's items (the query's, for the top level), when known. */
  readonly set: string | undefined;
  readonly type: EntityTypeInfo | undefined;
}

const NESTED_DELTA = /^(.+)@(?:odata\.)?delta$/;

/** The entity set a context URL names (`$metadata#Customers/$deletedEntity`, `#Orders/$entity`). */
function setOfContext(context: string | undefined): string | undefined {
  const name = context === undefined ? undefined : /#([A-Za-z_][\w.]*)(?:[/(]|$)/.exec(context)?.[1];
  return name === undefined || name.startsWith('Collection') ? undefined : name;
}

/** The entity set a delta query reads when it is a bare entity set (not a navigation or a single entity). */
function topLevelSet(serviceURL: string, url: string): string | undefined {
  return /^[^/(?#]+(?:\?|$)/.test(url.slice(serviceURL.length)) ? entitySetOf(serviceURL, url) : undefined;
}

/** A removal named by its key properties (4.01): the key, and an id built from the set when known. */
function removalByKey(item: Record<string, unknown>, level: Level, set: string | undefined): { id: string | undefined; key: Record<string, unknown> } | undefined {
  const names = level.type?.key.length ? level.type.key : Object.keys(item).filter((k) => !k.includes('@'));
  const key: Record<string, unknown> = {};
  for (const name of names) if (item[name] !== undefined) key[name] = item[name];
  if (Object.keys(key).length === 0 || names.some((n) => key[n] === undefined)) return undefined;
  let id: string | undefined;
  if (set !== undefined) {
    try {
      const value = names.length === 1 ? key[names[0]!] : key;
      id = set + keyPredicate(level.protocol, value as KeyValue, level.type);
    } catch {
      id = undefined; // A key value with no literal form: the key is reported without an id.
    }
  }
  return { id, key };
}

/** The changes of the nested deltas of an entity item (`Nav@delta`), and the item without them. */
function nestedOf(item: Record<string, unknown>, level: Level): { rest: Record<string, unknown>; related: Record<string, DeltaRelatedChange[]> | undefined } {
  let related: Record<string, DeltaRelatedChange[]> | undefined;
  let rest = item;
  for (const [name, value] of Object.entries(item)) {
    const nav = NESTED_DELTA.exec(name)?.[1];
    if (nav === undefined) continue;
    if (!Array.isArray(value)) throw new SluiceError(`The nested delta ${name} is not an array`);
    if (rest === item) rest = { ...item };
    delete rest[name];
    const target = level.type?.navigation.get(nav)?.type;
    const type = target === undefined ? undefined : level.metadata?.entityTypes.get(target);
    // The set the related entities live in: the parent set's NavigationPropertyBinding in $metadata.
    const bound = level.set === undefined ? undefined : level.metadata?.entitySets.get(level.set)?.navigationBindings.get(nav);
    const nested: Level = { ...level, set: bound?.split('/').at(-1), type };
    related ??= {};
    related[nav] = value.map((v) => relatedOf(v as Record<string, unknown>, nested));
  }
  return { rest, related };
}

function relatedOf(item: Record<string, unknown>, level: Level): DeltaRelatedChange {
  const change = changeOf(item, level, true);
  if (change.kind === 'link' || change.kind === 'deletedLink') throw new SluiceError('A nested delta holds a link; links are reported at the top level');
  return change as DeltaRelatedChange;
}

/**
 * Reads one delta item (OData JSON Format 4.0 section 15 and 4.01 section 15). A v2 removal is an item
 * of `d.results` in the same `$deletedEntity` form, with an `id` (as Apache Olingo's v2 library writes it).
 * A 4.01 removal may name the entity by its key properties instead of `@id`. Nested deltas of expanded
 * navigations (`Orders@delta`) go to `related`; entity values keep only the control information any read keeps.
 */
export function changeOf(item: Record<string, unknown>, level: Level, nested = false): DeltaChange<unknown> | DeltaRelatedChange {
  const removed = item['@odata.removed'] ?? item['@removed'];
  const context = str(item['@odata.context']) ?? str(item['@context']);
  if (removed !== undefined || context?.endsWith('$deletedEntity') === true) {
    const reason = str((removed as Record<string, unknown> | undefined)?.['reason']) ?? str(item['reason']);
    // 4.0's $deletedEntity form carries `id` as a property; with @removed, `id` may be a key property.
    const id = str(item['@odata.id']) ?? str(item['@id']) ?? (removed === undefined ? str(item['id']) : undefined);
    if (id !== undefined) return { kind: 'removed', id, reason };
    const byKey = removalByKey(item, level, setOfContext(context) ?? level.set);
    if (byKey === undefined) throw new SluiceError('A delta removal has neither an id nor key properties');
    if (byKey.id === undefined && !nested) throw new SluiceError('A delta removal names its entity by key, but no entity set is known to build its id from');
    return { kind: 'removed', id: byKey.id as string, key: byKey.key, reason };
  }
  if (!nested && context !== undefined && (context.endsWith('$link') || context.endsWith('$deletedLink'))) {
    return { kind: context.endsWith('$link') ? 'link' : 'deletedLink', source: str(item['source']) ?? '', relationship: str(item['relationship']) ?? '', target: str(item['target']) ?? '' };
  }
  const { rest, related } = nestedOf(item, level);
  const value = withoutControl(level.decode(rest, level.type));
  return related === undefined ? { kind: 'entity', value } : { kind: 'entity', value, related } as DeltaChange<unknown>;
}


/** The settings entities of a delta read are decoded with, as `stream()` decodes records. */
export interface DeltaDecoding {
  readonly largeNumbers: 'string' | 'number';
  readonly dates?: 'string' | 'Date' | undefined;
  readonly metadata: ServiceMetadata | undefined;
}

/**
 * How the top-level items of a delta read of `start` are read: entities (top level and nested) decoded by
 * their type as `stream()` decodes them (dates, Doubles' `"INF"`/`"NaN"`, v2 values); removals left as sent.
 */
export function topLevel(protocol: ODataProtocol, settings: DeltaDecoding, serviceURL: string, start: string, entityType: EntityTypeInfo | undefined): Level {
  const { largeNumbers, dates, metadata } = settings;
  const decode = (raw: unknown, type: EntityTypeInfo | undefined): unknown => {
    const ctx = { largeNumbers, dates, metadata, entityType: type };
    const decodeRecord = recordDecoder(protocol, ctx);
    return decodeRecord ? decodeRecord(raw, ctx) : raw;
  };
  return { decode, protocol, metadata, set: topLevelSet(serviceURL, start), type: entityType };
}
