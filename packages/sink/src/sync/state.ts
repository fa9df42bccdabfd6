// Run state in the target itself: one row per synced table in `sluice_sync`, written in the same
// transaction as the rows it describes, so the table and the link to resume from never disagree.
import type { Column } from '../columns.js';
import type { SqlTarget } from './sql-target.js';

/** The state table's name. */
export const STATE_TABLE = 'sluice_sync';

/** One table's sync state, as `sluice_sync` keeps it. */
export interface SyncState {
  readonly table: string;
  readonly serviceURL: string;
  readonly entitySet: string;
  /** The query the table holds (its URL without `$select`): another `$filter` needs a rebuild. */
  readonly query: string | undefined;
  /** `delta` (the service tracks changes) or `snapshot` (each run reloads). */
  readonly mode: 'delta' | 'snapshot';
  /** `loading`: a full read into `loadTable` is under way; `tracking`: the table is complete. */
  readonly phase: 'loading' | 'tracking';
  /** The table a load writes into before it replaces the table. */
  readonly loadTable: string | undefined;
  /**
   * Where the next run starts: the next link of a load under way, or the delta link (also while a delta
   * read is under way: its changes are the entities' current state, so reading them again changes nothing,
   * while a next link of a service that pages by offset would skip what moved meanwhile).
   */
  readonly resumeLink: string | undefined;
  /** The next link of a delta read under way (for diagnosis; runs start from `resumeLink`). */
  readonly nextLink: string | undefined;
  readonly columns: readonly Column[];
  readonly lastRun: string | undefined;
  /** Rows upserted and deleted over every run since the table's first load (or its last rebuild). */
  readonly upserted: number;
  readonly deleted: number;
  readonly runs: number;
  /**
   * Rows the current or last run applied, upserted and deleted: raised by {@link countApplied} in each page's
   * transaction, with the page's rows, never by {@link writeState}; set to 0 when a load or snapshot begins
   * and when a delta read begins after a complete one. A load resumed after a kill goes on counting, and so
   * does a delta read read again after a kill (its pages already applied are applied again, and counted again).
   */
  readonly runUpserted?: number | undefined;
  readonly runDeleted?: number | undefined;
}

/** `?` in SQLite, `$n` in PostgreSQL. */
export function placeholders(target: SqlTarget, n: number): string[] {
  return Array.from({ length: n }, (_, i) => (target.dialect === 'sqlite' ? '?' : `$${i + 1}`));
}

/** The columns added to `sluice_sync` after its first release, which a table made before lacks. */
const ADDED_COLUMNS = ['run_upserted', 'run_deleted'];

/** Creates `sluice_sync` when missing, and adds the columns a table made by an earlier sluice lacks. */
export async function ensureStateTable(target: SqlTarget): Promise<void> {
  await target.exec(`CREATE TABLE IF NOT EXISTS ${STATE_TABLE} (
    table_name TEXT PRIMARY KEY, service_url TEXT NOT NULL, entity_set TEXT NOT NULL, query_url TEXT, mode TEXT NOT NULL,
    phase TEXT NOT NULL, load_table TEXT, resume_link TEXT, next_link TEXT, columns TEXT NOT NULL, last_run TEXT,
    upserted BIGINT NOT NULL, deleted BIGINT NOT NULL, runs BIGINT NOT NULL,
    run_upserted BIGINT NOT NULL DEFAULT 0, run_deleted BIGINT NOT NULL DEFAULT 0)`);
  const have = new Set((await target.describe(STATE_TABLE))?.map((c) => c.name));
  for (const column of ADDED_COLUMNS.filter((c) => !have.has(c))) {
    try {
      await target.exec(`ALTER TABLE ${STATE_TABLE} ADD COLUMN ${column} BIGINT NOT NULL DEFAULT 0`);
    } catch (error) {
      // A sync of another table added it meanwhile.
      if (!(await target.describe(STATE_TABLE))?.some((c) => c.name === column)) throw error;
    }
  }
}

/** The state of `table`, if it was synced before. */
export async function readState(target: SqlTarget, table: string): Promise<SyncState | undefined> {
  const [row] = await target.query(`SELECT * FROM ${STATE_TABLE} WHERE table_name = ${placeholders(target, 1)[0]!}`, [table]);
  if (row === undefined) return undefined;
  const text = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
  return {
    table,
    serviceURL: String(row['service_url']),
    entitySet: String(row['entity_set']),
    query: text(row['query_url']),
    mode: row['mode'] === 'snapshot' ? 'snapshot' : 'delta',
    phase: row['phase'] === 'loading' ? 'loading' : 'tracking',
    loadTable: text(row['load_table']),
    resumeLink: text(row['resume_link']),
    nextLink: text(row['next_link']),
    columns: JSON.parse(String(row['columns'])) as Column[],
    lastRun: text(row['last_run']),
    upserted: Number(row['upserted']),
    deleted: Number(row['deleted']),
    runs: Number(row['runs']),
    runUpserted: Number(row['run_upserted']),
    runDeleted: Number(row['run_deleted']),
  };
}

/** Writes the state of `state.table` (inside the caller's transaction), leaving the run's counts of an existing row as they are. */
export async function writeState(target: SqlTarget, state: SyncState): Promise<void> {
  const names = ['table_name', 'service_url', 'entity_set', 'query_url', 'mode', 'phase', 'load_table', 'resume_link', 'next_link', 'columns', 'last_run', 'upserted', 'deleted', 'runs'];
  const values = [state.table, state.serviceURL, state.entitySet, state.query ?? null, state.mode, state.phase, state.loadTable ?? null, state.resumeLink ?? null, state.nextLink ?? null,
    JSON.stringify(state.columns), state.lastRun ?? null, state.upserted, state.deleted, state.runs];
  const set = names.slice(1).map((n) => `${n} = excluded.${n}`).join(', ');
  await target.exec(`INSERT INTO ${STATE_TABLE} (${names.join(', ')}) VALUES (${placeholders(target, names.length).join(', ')}) ON CONFLICT (table_name) DO UPDATE SET ${set}`, values);
}

/** Forgets the state of `table` (inside the caller's transaction). */
export async function deleteState(target: SqlTarget, table: string): Promise<void> {
  await target.exec(`DELETE FROM ${STATE_TABLE} WHERE table_name = ${placeholders(target, 1)[0]!}`, [table]);
}

/**
 * Adds a page's counts to the run's (`run_upserted`, `run_deleted`), or with `fresh` makes them the run's
 * first: called in the transaction that applies the page's rows, so the counts say how often rows were
 * applied, whatever else that transaction writes.
 */
export async function countApplied(target: SqlTarget, table: string, applied: { upserted: number; deleted: number }, fresh = false): Promise<void> {
  const [up, del, name] = placeholders(target, 3);
  const base = fresh ? '' : 'run_upserted + ';
  await target.exec(`UPDATE ${STATE_TABLE} SET run_upserted = ${base}${up!}, run_deleted = ${fresh ? '' : 'run_deleted + '}${del!} WHERE table_name = ${name!}`, [applied.upserted, applied.deleted, table]);
}
