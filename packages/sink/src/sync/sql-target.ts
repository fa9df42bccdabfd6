// A database that `syncEntitySet` writes into: the SQL it needs, spoken by SQLite and PostgreSQL alike
// (`INSERT ... ON CONFLICT ... DO UPDATE`, DDL inside transactions), with what differs behind this interface.
import type { Column } from '../columns.js';
import type { Dialect } from './sql-types.js';

/** A column of an existing table, as the database describes it. */
export interface TableColumn {
  readonly name: string;
  /** The declared type, lower-cased (`integer`, `numeric(12,2)`, `timestamp(3) with time zone`). */
  readonly type: string;
  readonly key: boolean;
}

/** What the sync engine asks of a database. Every method runs on one connection, in order. */
export interface SqlTarget {
  readonly dialect: Dialect;
  /** The target as the summary names it: `sqlite:orders.db`, `postgres://host:5432/db` (never a password). */
  readonly name: string;
  /** Takes the lock of `table` for this connection's life; a SinkError `locked` when another sync holds it. */
  lock(table: string): Promise<void>;
  /** Rows of a query (`?` placeholders in SQLite, `$1` in PostgreSQL). */
  query(sql: string, params?: readonly unknown[]): Promise<Record<string, unknown>[]>;
  /** Runs a statement. */
  exec(sql: string, params?: readonly unknown[]): Promise<void>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: () => Promise<T>): Promise<T>;
  /** The columns of `table`, or undefined when there is no such table. */
  describe(table: string): Promise<TableColumn[] | undefined>;
  /** Creates `table` with its primary key. */
  createTable(table: string, columns: readonly Column[]): Promise<void>;
  /** Inserts the rows (values in column order, converted), replacing those with the same key. */
  upsert(table: string, columns: readonly Column[], rows: readonly unknown[][]): Promise<void>;
  /** Deletes the rows with these keys (values in key-column order, converted). */
  remove(table: string, keys: readonly Column[], rows: readonly unknown[][]): Promise<void>;
  /** Replaces `table` by `staging` (inside the caller's transaction). */
  swap(staging: string, table: string): Promise<void>;
  close(): Promise<void>;
}
