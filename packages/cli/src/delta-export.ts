// `sluice export --delta-state`: the records of a DeltaSync read (OData v4 delta links, v2 SAP Gateway
// `__delta`), as NDJSON/JSON or CSV with removal columns, and a state file that advances only once the
// output is complete.
import { DeltaExpiredError, DeltaSync, FileDeltaStore, type DeltaChange, type DeltaRelated, type DeltaRelatedChange, type DeltaStore, type ODataClient, type Query, type StreamItem } from '@sluice/odata';
import { DeltaLinkRefused, UsageError } from './errors.js';
import { csvLine, valueAt, type RecordFormat } from './formats.js';
import type { Replacer } from './special-floats.js';
import { keyOfRemovedId } from '@sluice/sink';

/** Flags of `sluice export` about change tracking. */
export interface DeltaFlags {
  /** The file that keeps the delta link between runs. */
  deltaState?: string;
  /** Forget the kept link: a full read that starts tracking anew. */
  deltaReset?: boolean;
}

/**
 * Loads the kept link from the state file but holds a new one back until {@link commit}, so an
 * interrupted or failed export leaves the file as it was. A refused link is not cleared from the file.
 */
class HeldDeltaStore implements DeltaStore {
  private held: { key: string; link: string } | undefined;
  constructor(private readonly file: FileDeltaStore, private readonly reset: boolean) {}

  load(key: string): Promise<string | undefined> {
    return this.reset ? Promise.resolve(undefined) : this.file.load(key);
  }

  save(key: string, link: string): Promise<void> {
    this.held = { key, link };
    return Promise.resolve();
  }

  clear(): Promise<void> {
    return Promise.resolve();
  }

  /** Writes the new link to the state file (temporary file, then rename). */
  async commit(): Promise<void> {
    if (this.held) await this.file.save(this.held.key, this.held.link);
  }
}

/** A removal as an output record. */
interface RemovalRecord {
  '@removed': { reason: string };
  '@id': string;
}

/**
 * An entity with the changes of its expanded navigations (`change.related`) written back as OData JSON 4.01
 * writes a nested delta: `"Orders@delta": [...]`, each related entity as a record, each related removal as
 * `{"@removed":{"reason":...},"@id":...}` with the key properties when the service named it by key.
 */
function withRelated(value: unknown, related: DeltaRelated | undefined): unknown {
  if (related === undefined) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [nav, changes] of Object.entries(related)) out[`${nav}@delta`] = changes.map(relatedRecord);
  return out;
}

function relatedRecord(change: DeltaRelatedChange): unknown {
  if (change.kind === 'entity') return withRelated(change.value, change.related);
  return { '@removed': { reason: change.reason ?? 'deleted' }, ...(change.id === undefined ? {} : { '@id': change.id }), ...change.key };
}

/** A change as an output record: entities as they are (with their nested deltas), removals and links as annotated records. */
function recordOf(change: DeltaChange<unknown>): unknown {
  switch (change.kind) {
    case 'entity':
      return withRelated(change.value, change.related);
    case 'removed':
      return { '@removed': { reason: change.reason ?? 'deleted' }, '@id': change.id } satisfies RemovalRecord;
    default:
      return { [`@${change.kind}`]: { source: change.source, relationship: change.relationship, target: change.target } };
  }
}

/** The removal a record of {@link recordOf} stands for, if it is one. */
function removalOf(record: unknown): RemovalRecord | undefined {
  return typeof record === 'object' && record !== null && '@removed' in record && '@id' in record ? (record as RemovalRecord) : undefined;
}

/**
 * The key properties of a removed entity, read from its id: `.../Orders(42)` gives `{ ID: '42' }` when the
 * type's key is `ID`, `.../Items(OrderID=1,ItemNo='A')` gives both parts (`@sluice/sink`'s reading). Empty
 * when the id has another form (the `_id` column keeps it whole anyway).
 */
export function keyOfId(id: string, keyNames: readonly string[]): Record<string, string> {
  try {
    return keyOfRemovedId(id, keyNames);
  } catch {
    return {};
  }
}

/** Columns a delta CSV puts before the entity's: the reason of a removal (empty for an entity) and its id. */
export const DELTA_CSV_COLUMNS = ['_removed', '_id'] as const;

/**
 * CSV of a change-tracking read: `_removed` and `_id` before the entity's columns. An entity's row has
 * them empty; a removal's row has the reason (`deleted`, `changed`) and the entity's id, its key columns
 * filled from the id and every other column empty.
 */
export function deltaCSV(columns: readonly string[], keyNames: readonly string[], raw = false, replacer?: Replacer): RecordFormat {
  return {
    begin: () => csvLine([...DELTA_CSV_COLUMNS, ...columns], raw),
    record(value) {
      const removal = removalOf(value);
      if (removal === undefined) return csvLine(['', '', ...columns.map((c) => valueAt(value, c))], raw, replacer);
      const key = keyOfId(removal['@id'], keyNames);
      return csvLine([removal['@removed'].reason, removal['@id'], ...columns.map((c) => key[c])], raw, replacer);
    },
    end: () => '',
  };
}

/** The first record whose columns can stand for the set's (a removal has none of them). */
export function entityRecord(record: unknown): unknown {
  return removalOf(record) === undefined ? record : undefined;
}

/**
 * A delta read of `query` as records (items as `query.streamBatches()` gives, one record each), with `commit()` to
 * advance the state file afterwards.
 */
export interface DeltaRecords {
  records: AsyncIterable<StreamItem<unknown[]>>;
  commit(): Promise<void>;
}

/** Checks the flags that do not go with `--delta-state`, before anything is read. */
export function checkDeltaFlags(flags: DeltaFlags & { format: string; pageSize?: number; expand?: string }): void {
  if (flags.deltaState === undefined) {
    if (flags.deltaReset) throw new UsageError('--delta-reset needs --delta-state <file>');
    return;
  }
  if (flags.deltaState === '') throw new UsageError('--delta-state needs a file name');
  if (flags.format === 'csv' && flags.expand !== undefined) {
    throw new UsageError('--delta-state with --format csv does not go with --expand (a CSV row cannot hold an added or removed link)', 'use --format ndjson or json, or leave --expand out');
  }
  if (flags.pageSize !== undefined) throw new UsageError('--page-size does not go with --delta-state (the service pages change-tracking reads itself)');
}

/** Starts a change-tracking read of `query`; the state file key is the query URL. */
export function deltaRecords(od: ODataClient, query: Query, flags: DeltaFlags, signal: AbortSignal): DeltaRecords {
  const store = new HeldDeltaStore(new FileDeltaStore(flags.deltaState!), flags.deltaReset === true);
  const sync = new DeltaSync(od, query, { store, signal });
  async function* records(): AsyncGenerator<StreamItem<unknown[]>> {
    for await (const change of sync.changes()) yield { value: [recordOf(change)] };
  }
  return { records: records(), commit: () => store.commit() };
}

/** A refused delta link as the CLI reports it (exit 1, with a hint); other errors as they are. */
export function explainDeltaError(error: unknown, stateFile: string | undefined): unknown {
  return error instanceof DeltaExpiredError && stateFile !== undefined ? new DeltaLinkRefused(error.status, stateFile) : error;
}
