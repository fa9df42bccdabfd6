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
  readonly upserted: number;
  readonly deleted: number;
  readonly runs: number;
}

/** `?` in SQLite, `$n` in PostgreSQL. */
export function placeholders(target: SqlTarget, n: number): string[] {
  return Array.from({ length: n }, (_, i) => (target.dialect === 'sqlite' ? '?' : `$${i + 1}`));
}

/** Creates `sluice_sync` when missing. */
export async function ensureStateTable(target: SqlTarget): Promise<void> {
  await target.exec(`CREATE TABLE IF NOT EXISTS ${STATE_TABLE} (
    table_name TEXT PRIMARY KEY, service_url TEXT NOT NULL, entity_set TEXT NOT NULL, query_url TEXT, mode TEXT NOT NULL,
    phase TEXT NOT NULL, load_table TEXT, resume_link TEXT, next_link TEXT, columns TEXT NOT NULL, last_run TEXT,
    upserted BIGINT NOT NULL, deleted BIGINT NOT NULL, runs BIGINT NOT NULL)`);
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
  };
}

/** Writes the state of `state.table` (inside the caller's transaction). */
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
