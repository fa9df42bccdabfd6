// The columns of an entity set, typed from `$metadata`: one kind per EDM type, shared by the Parquet
// writer and the SQL targets (each maps a kind to its own type; see the README's tables).
import { edmPrimitive, type EdmKind, type EntityTypeInfo, type PropertyInfo, type ServiceMetadata } from '@sluice/odata';
import { SinkError } from './errors.js';

/**
 * What a column holds, whatever the target: `int` (Byte, SByte, Int16, Int32 with their `bits`), `int64`,
 * `decimal` (with `precision`/`scale` when declared), `double`, `single`, `boolean`, `date`,
 * `timestamp` (DateTimeOffset, v2 DateTime), `time` (TimeOfDay, v2 Time), `duration`, `guid`, `binary`,
 * `string` (also enum members), and `json` (complex, collection, geography/geometry and unknown types).
 */
export type ColumnKind =
  | 'int' | 'int64' | 'decimal' | 'double' | 'single' | 'boolean' | 'date' | 'timestamp' | 'time' | 'duration'
  | 'guid' | 'binary' | 'string' | 'json';

/** One column: a property of the entity type, its EDM type and facets, and the kind it maps to. */
export interface Column {
  /** The property name (also the column name). */
  readonly name: string;
  /** The EDM type as `$metadata` declares it, such as `Edm.Decimal` or `Collection(Edm.String)`. */
  readonly edmType: string;
  readonly kind: ColumnKind;
  readonly nullable: boolean;
  /** Part of the entity key. */
  readonly key: boolean;
  /** Bits of an `int` column (8, 16, 32) and whether it is signed (Byte is not). */
  readonly bits?: number | undefined;
  readonly signed?: boolean | undefined;
  /** Decimal precision and scale, or the fractional-second digits of a timestamp/time. */
  readonly precision?: number | undefined;
  readonly scale?: number | undefined;
}

/** The column kind of each EDM kind of `@sluice/odata`'s type table (integers and floats split by width below). */
const BY_EDM_KIND: Record<EdmKind, ColumnKind> = {
  boolean: 'boolean', integer: 'int', decimal: 'decimal', float: 'double', string: 'string', guid: 'guid', binary: 'binary',
  date: 'date', timestamp: 'timestamp', time: 'time', duration: 'duration', stream: 'binary', geo: 'json', untyped: 'json',
};

/**
 * The kind of a property type, from `@sluice/odata`'s EDM type table (`edmPrimitive`). v2 `Edm.Time`
 * (a time of day on SAP) is `time`. Enum types (qualified names that are no complex type) are strings;
 * complex types and collections are JSON.
 */
export function kindOf(edmType: string, md: ServiceMetadata | undefined): ColumnKind {
  if (edmType.startsWith('Collection(')) return 'json';
  const edm = edmPrimitive(edmType);
  if (edm !== undefined) {
    if (edm.kind === 'integer' && edm.bits === 64) return 'int64';
    if (edm.kind === 'float' && edm.bits === 32) return 'single';
    return BY_EDM_KIND[edm.kind];
  }
  if (edmType.startsWith('Edm.')) return 'json';
  return md?.complexTypes.has(edmType) === true ? 'json' : 'string';
}

function columnOf(prop: PropertyInfo, key: boolean, md: ServiceMetadata | undefined): Column {
  const kind = kindOf(prop.type, md);
  const edm = kind === 'int' ? edmPrimitive(prop.type) : undefined;
  return {
    name: prop.name,
    edmType: prop.type,
    kind,
    nullable: prop.nullable && !key,
    key,
    ...(edm?.bits === undefined ? {} : { bits: edm.bits, signed: edm.signed !== false }),
    ...(prop.precision === undefined ? {} : { precision: prop.precision }),
    ...(prop.scale === undefined ? {} : { scale: prop.scale }),
  };
}

/**
 * The columns of `entitySet`: its entity type's structural properties in `$metadata` order (streams
 * left out), or those of `select` in its order. A name in `select` that is not a property is an error,
 * and so, with `requireKey`, is a `select` without every key property (a table needs its key).
 */
export function columnsOf(md: ServiceMetadata, entitySet: string, options: { select?: readonly string[] | undefined; requireKey?: boolean | undefined } = {}): Column[] {
  const type = entityTypeOf(md, entitySet);
  const keys = new Set(type.key);
  const props = [...type.properties.values()].filter((p) => p.type !== 'Edm.Stream');
  const select = options.select?.filter(Boolean);
  if (select === undefined || select.length === 0) return props.map((p) => columnOf(p, keys.has(p.name), md));
  const out: Column[] = [];
  for (const name of select) {
    const prop = type.properties.get(name);
    if (prop === undefined) throw new SinkError(`--select names ${JSON.stringify(name)}, which is no property of ${type.qualifiedName}`, 'select');
    out.push(columnOf(prop, keys.has(name), md));
  }
  if (options.requireKey) {
    const missing = type.key.filter((k) => !select.includes(k));
    if (missing.length) throw new SinkError(`--select leaves out the key ${missing.join(', ')} of ${entitySet}: a synced table needs every key property`, 'select');
  }
  return out;
}

/** The entity type of `entitySet`, or an error naming the set. */
export function entityTypeOf(md: ServiceMetadata, entitySet: string): EntityTypeInfo {
  const type = md.entitySets.get(entitySet)?.entityType;
  if (type === undefined) throw new SinkError(`$metadata has no entity set ${JSON.stringify(entitySet)} (or not its entity type)`, 'entity-set');
  return type;
}
