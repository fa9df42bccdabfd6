import { ConfigError } from '@sluice/core';
import type { EntityTypeInfo, PropertyInfo } from '../metadata/model.js';

/**
 * How partition boundaries are found. `quantiles` (the default) counts the matching records (`$count`,
 * one request) and reads the property at each boundary's offset (`$orderby` + `$skip` + `$top=1` +
 * `$select`, one request per boundary: N - 1 for N partitions, 16 at a time), so every partition holds about as many
 * records, on any orderable type. `minmax` reads the smallest and largest value (two requests) and
 * splits that span into equal widths: cheaper, for integer properties only, and partitions are even only
 * when the values are.
 */
export type PartitionBoundaries = 'quantiles' | 'minmax';

/** A boundary value as JSON keeps it: numbers, and strings for text, Int64, Decimal, GUIDs and dates. */
export type BoundaryValue = string | number;

/** One partition of a {@link PartitionPlan}: a range of the partition property, or its null values. */
export interface Partition {
  /** 1-based position in the plan (`part-00001` is partition 1). */
  readonly index: number;
  /** Inclusive lower bound (`ge`); undefined for the first range, open below. */
  readonly lower: BoundaryValue | undefined;
  /** Exclusive upper bound (`lt`); undefined for the last range, open above. */
  readonly upper: BoundaryValue | undefined;
  /** The partition of records whose property is null (`eq null`), planned for a nullable property. */
  readonly nulls: boolean;
  /**
   * The range as `$filter` text in the service's OData version, literals typed by `$metadata` and
   * escaped; undefined when one partition is the whole set. It is ANDed with the query's own filter.
   */
  readonly filter: string | undefined;
}

/** The partitions of a query's records: they cover every record once (see {@link planPartitions}). */
export interface PartitionPlan {
  readonly entitySet: string;
  /** The partition property and its EDM type. */
  readonly property: string;
  readonly type: string;
  readonly boundaries: PartitionBoundaries;
  /** Partitions asked for; `partitions.length` may be fewer (see `note`), plus one for nulls. */
  readonly requested: number;
  readonly partitions: readonly Partition[];
  /** Records with a non-null property that match the query (quantiles count them; minmax does not). */
  readonly count: number | undefined;
  /** Requests the planning sent (`$metadata` not included). */
  readonly requests: number;
  /** Why there are fewer partitions than asked for, or that the set is empty. */
  readonly note: string | undefined;
}

/** Options of {@link planPartitions}. */
export interface PartitionOptions {
  /** How many partitions to make, 1 to 10,000. */
  partitions: number;
  /** The property to split on; default: the single key property of the entity type. */
  by?: string | undefined;
  /** How boundaries are found; default `quantiles`. */
  boundaries?: PartitionBoundaries | undefined;
  /** Cancels the planning requests. */
  signal?: AbortSignal | undefined;
}

/** What kind of ordering a property has, by EDM type; absent types cannot be partitioned. */
const ORDERABLE: Readonly<Record<string, 'integer' | 'number' | 'string' | 'date' | 'guid' | 'time'>> = {
  'Edm.Byte': 'integer', 'Edm.SByte': 'integer', 'Edm.Int16': 'integer', 'Edm.Int32': 'integer', 'Edm.Int64': 'integer',
  'Edm.Decimal': 'number', 'Edm.Double': 'number', 'Edm.Single': 'number',
  'Edm.String': 'string',
  'Edm.Date': 'date', 'Edm.DateTime': 'date', 'Edm.DateTimeOffset': 'date',
  'Edm.TimeOfDay': 'time',
  'Edm.Guid': 'guid',
};

/** The kind of ordering of an EDM type, or undefined if it has none sluice partitions on. */
export function orderingOf(type: string): 'integer' | 'number' | 'string' | 'date' | 'guid' | 'time' | undefined {
  return ORDERABLE[type];
}

/** The partition property: `by` or the single key, checked to exist and to be orderable. */
export function partitionProperty(entitySet: string, type: EntityTypeInfo, by: string | undefined): PropertyInfo {
  const name = by ?? (type.key.length === 1 ? type.key[0] : undefined);
  if (name === undefined) {
    throw new ConfigError('partitionBy', `is needed: ${entitySet} has a composite key (${type.key.join(', ')}); name one orderable property`);
  }
  const property = type.properties.get(name);
  if (property === undefined) {
    const known = [...type.properties.keys()].filter((p) => orderingOf(type.properties.get(p)!.type) !== undefined);
    throw new ConfigError('partitionBy', `"${name}" is not a property of ${entitySet} (orderable ones: ${known.join(', ') || 'none'})`);
  }
  if (orderingOf(property.type) === undefined) {
    throw new ConfigError('partitionBy', `"${name}" of ${entitySet} is ${property.type}, which cannot be split into ranges (integers, decimals, strings, dates, times and GUIDs can)`);
  }
  return property;
}

/** Checks the number of partitions asked for. */
export function checkPartitionCount(n: unknown): number {
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > 10_000) throw new ConfigError('partitions', `must be an integer from 1 to 10000, got ${String(n)}`);
  return n;
}
