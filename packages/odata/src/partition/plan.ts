import { setMaxListeners } from 'node:events';
import { ConfigError } from '@sluice/core';
import type { PropertyInfo } from '../metadata/model.js';
import type { ODataProtocol } from '../protocol/types.js';
import type { QueryHost } from '../query/base.js';
import type { QueryState } from '../query/state.js';
import { Expr, FilterBuilder, type RenderContext } from '../query/filter.js';
import { Query } from '../query/query.js';
import type { HasUntyped } from '../untyped-view.js';
import {
  checkPartitionCount, orderingOf, partitionProperty,
  type BoundaryValue, type Partition, type PartitionBoundaries, type PartitionOptions, type PartitionPlan,
} from './types.js';

/**
 * Boundary reads in flight at once while planning (each is one small request that waits for the service's
 * latency, as a page does): planning 16 partitions is then two round trips ($count, the 15 reads) instead of five.
 */
const SAMPLE_CONCURRENCY = 16;

const f = new FilterBuilder();

/** A value read from a record as a boundary (dates as ISO text, Int64 kept as text). */
function boundaryOf(value: unknown, property: PropertyInfo): BoundaryValue {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw new ConfigError('partitionBy', `"${property.name}" gave a ${value === null ? 'null' : typeof value} value the service ordered among its values; it cannot be a boundary`);
}

/** The query's state, refused when it has options a partitioned read cannot keep. */
function baseState(query: Query<unknown>): { host: QueryHost; state: QueryState } {
  const { host, state } = query.parts();
  if (state.segments.length > 0) throw new ConfigError('query', 'a partitioned read starts at an entity set (no key or navigation segments)');
  const fixed = [state.top === undefined ? '' : '$top', state.skip === undefined ? '' : '$skip', state.orderBy.length ? '$orderby' : ''].filter(Boolean);
  if (fixed.length) throw new ConfigError('query', `a partitioned read cannot keep ${fixed.join(', ')}: partitions are ranges read independently`);
  return { host, state };
}

/** A query of one value of the property: the first record in the given order after `skip` records. */
async function sample(host: QueryHost, state: QueryState, property: string, order: string, skip: number, notNull: Expr | undefined, signal: AbortSignal | undefined): Promise<unknown> {
  const filters = notNull === undefined ? state.filters : [...state.filters, notNull];
  const q = new Query<Record<string, unknown>>(host, { ...state, filters, select: [property], expand: [], orderBy: [order], top: 1, skip: skip || undefined, count: false });
  const rows = await q.list(signal === undefined ? {} : { signal });
  return rows[0]?.[property];
}

/** Runs `tasks` with at most `limit` at once, results in order. */
async function pooled<T>(tasks: readonly (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array<T>(tasks.length);
  let next = 0;
  const run = async (): Promise<void> => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, run));
  return out;
}

/** Integer boundaries splitting [min, max] into `n` equal widths (BigInt, so Int64 keeps every digit). */
function integerSplits(min: bigint, max: bigint, n: number, asText: boolean): BoundaryValue[] {
  const span = max - min + 1n;
  const parts = span < BigInt(n) ? Number(span) : n;
  const out: BoundaryValue[] = [];
  for (let i = 1; i < parts; i++) {
    const b = min + (span * BigInt(i)) / BigInt(parts);
    out.push(asText ? b.toString() : Number(b));
  }
  return out;
}

function integerOf(value: BoundaryValue, property: PropertyInfo): bigint {
  if (typeof value === 'number' ? Number.isSafeInteger(value) : /^-?\d+$/.test(value)) return BigInt(value);
  throw new ConfigError('partitionBy', `"${property.name}" gave ${JSON.stringify(value)}, which is not an integer`);
}

/** Renders the ranges between sorted boundaries (and the null partition) as partitions. */
function rangesOf(splits: readonly BoundaryValue[], property: PropertyInfo, ctx: RenderContext, wholeSet: boolean): Partition[] {
  const p = property.name;
  const render = (e: Expr): string => e.render(ctx);
  const parts: Partition[] = [];
  if (splits.length === 0) {
    // One range: the whole set, or every non-null value when a null partition follows.
    parts.push({ index: 1, lower: undefined, upper: undefined, nulls: false, filter: wholeSet ? undefined : render(f.ne(p, null)) });
  }
  for (let i = 0; i < splits.length && splits.length > 0; i++) {
    if (i === 0) parts.push({ index: 1, lower: undefined, upper: splits[0], nulls: false, filter: render(f.lt(p, splits[0]!)) });
    else parts.push({ index: i + 1, lower: splits[i - 1], upper: splits[i], nulls: false, filter: render(f.and(f.ge(p, splits[i - 1]!), f.lt(p, splits[i]!))) });
  }
  if (splits.length > 0) {
    const last = splits[splits.length - 1]!;
    parts.push({ index: splits.length + 1, lower: last, upper: undefined, nulls: false, filter: render(f.ge(p, last)) });
  }
  if (!wholeSet) parts.push({ index: parts.length + 1, lower: undefined, upper: undefined, nulls: true, filter: render(f.eq(p, null)) });
  return parts;
}

/** Drops repeated boundaries (a property with duplicates, or a set that changed while sampling). */
function distinct(values: readonly BoundaryValue[]): BoundaryValue[] {
  return values.filter((v, i) => i === 0 || v !== values[i - 1]);
}

/**
 * Splits the records of `query` (an entity set with an optional `$filter`, `$search`, `$select`,
 * `$expand` and custom options) into ranges of one orderable property, the single key by default.
 * Each partition is a `$filter` range: the first `P lt b1`, then `P ge b1 and P lt b2`, ..., the last
 * `P ge bN-1`, so together they cover every record exactly once whatever the values are, even when
 * records are added while the partitions are read. Boundaries come from the service, so its own
 * ordering of strings, GUIDs and dates is the one used (see {@link PartitionBoundaries} for the cost).
 *
 * A nullable property gets one more partition, `P eq null`, since comparisons with null are false
 * (the ranges leave nulls out). Fewer partitions than asked for are made when the set has fewer records
 * or distinct values (`note` says why); a set with no matching record gets one partition, which reads
 * nothing. `$metadata` must describe the entity set (types decide the literals); `$top`, `$skip` and
 * `$orderby` are refused. Bad input is a `ConfigError` naming the option (`partitions`, `partitionBy`).
 *
 * @example
 * ```ts
 * import { planPartitions, partitionQuery } from '@sluice/odata'
 *
 * const base = od.from('Products').filter("Category eq 'Tools'")
 * const plan = await planPartitions(base, { partitions: 8 })
 * for (const part of plan.partitions) console.log(part.index, partitionQuery(base, part).toURL())
 * ```
 */
export async function planPartitions(given: HasUntyped<Query<any>>, options: PartitionOptions): Promise<PartitionPlan> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const query = given.untyped as Query<unknown>;
  const requested = checkPartitionCount(options.partitions);
  const method: PartitionBoundaries = options.boundaries ?? 'quantiles';
  if (method !== 'quantiles' && method !== 'minmax') throw new ConfigError('boundaries', `must be 'quantiles' or 'minmax', got ${JSON.stringify(method)}`);
  const { host, state } = baseState(query);
  // The boundary reads in flight each listen to the signal: a signal of their own, allowed that many listeners.
  const signal = options.signal === undefined ? undefined : AbortSignal.any([options.signal]);
  if (signal !== undefined) setMaxListeners(2 * SAMPLE_CONCURRENCY + 10, signal);
  const md = await host.metadata(signal === undefined ? {} : { signal });
  const protocol: ODataProtocol = await host.protocolReady(signal);
  const entityType = md.entitySets.get(state.set)?.entityType;
  if (entityType === undefined) throw new ConfigError('partitionBy', `needs the entity type of ${state.set}, which $metadata does not describe`);
  const property = partitionProperty(state.set, entityType, options.by);
  const ordering = orderingOf(property.type);
  if (method === 'minmax' && ordering !== 'integer') throw new ConfigError('boundaries', `'minmax' needs an integer property; "${property.name}" is ${property.type} (use 'quantiles')`);
  const ctx: RenderContext = { protocol, typeOf: (path) => entityType.properties.get(path)?.type };
  const nullable = property.nullable;
  const notNull = nullable ? f.ne(property.name, null) : undefined;
  const plan = { entitySet: state.set, property: property.name, type: property.type, boundaries: method, requested };
  let requests = 0;
  const read = (order: string, skip: number): Promise<unknown> => {
    requests++;
    return sample(host, state, property.name, order, skip, notNull, signal);
  };

  let splits: BoundaryValue[];
  let count: number | undefined;
  let empty: boolean;
  if (method === 'minmax') {
    const [min, max] = await Promise.all([read(property.name, 0), read(`${property.name} desc`, 0)]);
    empty = min === undefined || max === undefined;
    const asText = property.type === 'Edm.Int64';
    splits = empty ? [] : integerSplits(integerOf(boundaryOf(min, property), property), integerOf(boundaryOf(max, property), property), requested, asText);
  } else {
    const counted = notNull === undefined ? query : query.filter(notNull);
    requests++;
    count = await counted.countOnly(signal === undefined ? {} : { signal });
    empty = count === 0;
    const n = Math.min(requested, Math.max(count, 1));
    const offsets = Array.from({ length: n - 1 }, (_, i) => Math.floor(((i + 1) * count!) / n));
    const values = await pooled(offsets.map((skip) => () => read(property.name, skip)), SAMPLE_CONCURRENCY);
    // A value missing at an offset: records went away since the count; the ranges still cover all.
    splits = values.filter((v) => v !== undefined && v !== null).map((v) => boundaryOf(v, property));
  }
  const unique = distinct(splits);
  const partitions = rangesOf(unique, property, ctx, !nullable);
  const ranges = unique.length + 1;
  const note = empty ? `no record of ${state.set} matches: one partition, which reads nothing${nullable ? ' (and one for nulls)' : ''}`
    : ranges < requested ? `made ${ranges} of the ${requested} partitions asked for: ${count !== undefined && count < requested ? `only ${count} records match` : `only ${ranges} distinct ranges of ${property.name}`}`
      : undefined;
  return { ...plan, partitions, count, requests, note };
}

/** The query of one partition: `query` (a `Query` or a typed query, whose type it keeps) with the partition's range ANDed to its filter. */
export function partitionQuery<Q extends HasUntyped<Query<any>> & { filter(condition: string): Q }>(query: Q, partition: Partition): Q { // eslint-disable-line @typescript-eslint/no-explicit-any
  return partition.filter === undefined ? query : query.filter(partition.filter);
}
