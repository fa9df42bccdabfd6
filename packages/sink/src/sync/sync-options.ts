// The options and the result of syncEntitySet (sync.ts), in a module of their own.
import type { HasUntyped, ODataClient, PartitionBoundaries, Query } from '@sluice/odata';
import type { SqlTarget } from './sql-target.js';

/** Options of {@link syncEntitySet}. */
export interface SyncOptions {
  /** The client of the service (a client typed by its service as it is). */
  od: HasUntyped<ODataClient>;
  /** The entity set to sync. */
  entitySet: string;
  /** The query to read (`$filter`, `$select`, custom options); default `od.from(entitySet)`. */
  query?: HasUntyped<Query<unknown>> | undefined;
  /** The properties to keep (`$select`): they must include the key. Default: every property. */
  select?: readonly string[] | undefined;
  /** `sqlite:<file>`, `postgres://...`, or an opened target. */
  into: string | SqlTarget;
  /** The table (default: the entity set's name). */
  table?: string | undefined;
  /** `auto` (default: delta when the service tracks changes, else snapshot), `delta` or `snapshot`. */
  mode?: 'auto' | 'delta' | 'snapshot' | undefined;
  /** Reload everything into a new table that replaces the old one, forgetting the kept state (after drift). */
  rebuild?: boolean | undefined;
  /**
   * With `mode: 'snapshot'`: split the load into this many `$filter` ranges of `partitionBy` (see
   * `planPartitions` of @sluice/odata), read `parallel` at once into the staging table, which replaces
   * the table after the last page of the last partition (complete or nothing, as an unpartitioned snapshot).
   */
  partitions?: number | undefined;
  /** The orderable property the partitions split on; default: the single key. */
  partitionBy?: string | undefined;
  /** How partition boundaries are found: `quantiles` (default) or `minmax` (integers). */
  boundaries?: PartitionBoundaries | undefined;
  /** Partitions read at once (1-256, default 4); pages are written one at a time on the target's connection. */
  parallel?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called after each committed page with the run's counts so far. */
  onProgress?: ((progress: { upserted: number; deleted: number; pages: number }) => void) | undefined;
  /** Called with what the user should know: a mode chosen, a column added, a refused delta link. */
  onNotice?: ((message: string) => void) | undefined;
}

/** What one run did. */
export interface SyncResult {
  readonly table: string;
  /** The target as named in messages (no password). */
  readonly target: string;
  /** `load` (everything, first run or after `rebuild`), `reload` (after a refused delta link, or to fill new columns), `delta` or `snapshot`. */
  readonly run: 'load' | 'reload' | 'delta' | 'snapshot';
  readonly mode: 'delta' | 'snapshot';
  readonly upserted: number;
  readonly deleted: number;
  readonly pages: number;
  /** Partitions the snapshot was read in (absent when it was read as one stream). */
  readonly partitions?: number | undefined;
}
