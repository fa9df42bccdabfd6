// The SQLite target: Node's built-in `node:sqlite` where there is one (Node 22.13+), else better-sqlite3
// (an optional peer dependency). Both are synchronous; a page is applied by prepared statements in one
// transaction. A sync's lock is an exclusive transaction on a lock file beside the database, which the
// operating system releases when the process dies, even by SIGKILL.
import { createRequire } from 'node:module';
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import type { SqlTarget, TableColumn } from './sql-target.js';
import { ident, sqlType } from './sql-types.js';
import { sqliteRefusal } from './sqlite-refused.js';

/** A prepared statement of either SQLite driver. */
export interface SqliteStatement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A connection of either driver (`node:sqlite` DatabaseSync, better-sqlite3 Database). */
export interface SqliteConnection {
  exec(sql: string): void;
  prepare(sql: string): SqliteStatement;
  close(): void;
}

type Opener = (path: string) => SqliteConnection;

let opener: Opener | undefined;
/** Whether the driver's `run` binds an array's values (better-sqlite3); `node:sqlite` takes them as arguments only. */
let runTakesArray = false;

/** `node:sqlite` without its one-time experimental warning (Node 22), or undefined where Node has none. */
function builtinSqlite(): Opener | undefined {
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    if (!String(typeof warning === 'string' ? warning : warning.message).includes('SQLite')) (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const mod = process.getBuiltinModule?.('node:sqlite') as { DatabaseSync: new (path: string) => SqliteConnection } | undefined;
    return mod === undefined ? undefined : (path) => new mod.DatabaseSync(path);
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/** better-sqlite3, resolved from this package, or from the working directory (a CLI installed globally). */
function betterSqlite(): Opener | undefined {
  for (const base of [import.meta.url, `${process.cwd()}/`]) {
    try {
      const Database = createRequire(base)('better-sqlite3') as new (path: string) => SqliteConnection & { defaultSafeIntegers(on: boolean): void };
      runTakesArray = true;
      return (path) => new Database(path);
    } catch {
      // not installed there, or built for another Node: try the next place
    }
  }
  return undefined;
}

/** Opens a SQLite database file with whichever driver this Node has. */
export function openSqlite(path: string): SqliteConnection {
  opener ??= builtinSqlite() ?? betterSqlite();
  if (opener === undefined) {
    throw new SinkError(`SQLite needs Node 22.13 or newer (node:sqlite), or the better-sqlite3 package beside sluice (npm install better-sqlite3); Node ${process.versions.node} has neither`, 'driver');
  }
  return opener(path);
}

/** Writes one row (values in column order, converted); the array may be reused for the next row once it returns. */
export type RowWriter = (row: readonly unknown[]) => void;

/** The SQLite target; {@link SqliteTarget.upserter} writes rows one at a time, as they are made. */
export class SqliteTarget implements SqlTarget {
  readonly dialect = 'sqlite' as const;
  private lockDb: SqliteConnection | undefined;
  private readonly statements = new Map<string, SqliteStatement>();
  /** The upsert writer of each table, for the columns it was made for. */
  private readonly writers = new Map<string, { columns: readonly Column[]; write: RowWriter }>();

  constructor(readonly name: string, private readonly path: string, private readonly db: SqliteConnection) {}

  lock(table: string): Promise<void> {
    const file = `${this.path}.${table.replace(/[^\w.-]/g, '_')}.sluice-lock`;
    const db = openSqlite(file);
    try {
      db.exec('PRAGMA busy_timeout = 0');
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      db.close();
      if (/locked|busy/i.test(String((error as Error).message))) {
        return Promise.reject(new SinkError(`another sluice sync of table ${table} in ${this.path} is running (it holds ${file}); this one stops without changing anything`, 'locked'));
      }
      return Promise.reject(error);
    }
    this.lockDb = db;
    return Promise.resolve();
  }

  private prepared(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  query(sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
    return Promise.resolve(this.prepared(sql).all(...params) as Record<string, unknown>[]);
  }

  exec(sql: string, params: readonly unknown[] = []): Promise<void> {
    if (params.length === 0 && !sql.includes('?')) this.db.exec(sql);
    else this.prepared(sql).run(...params);
    return Promise.resolve();
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const result = await work();
      this.db.exec('COMMIT');
      return result;
    } catch (error) {
      try {
        this.db.exec('ROLLBACK');
      } catch (undo) {
        // A trigger's RAISE(ROLLBACK) has rolled the transaction back already.
        if (!/no transaction is active/.test((undo as Error).message)) throw undo;
      }
      throw error;
    }
  }

  describe(table: string): Promise<TableColumn[] | undefined> {
    const rows = this.db.prepare(`PRAGMA table_info(${ident(table)})`).all() as { name: string; type: string; pk: number }[];
    if (rows.length === 0) return Promise.resolve(undefined);
    return Promise.resolve(rows.map((r) => ({ name: r.name, type: r.type.toLowerCase(), key: r.pk > 0 })));
  }

  createTable(table: string, columns: readonly Column[]): Promise<void> {
    const defs = columns.map((c) => `${ident(c.name)} ${sqlType('sqlite', c)}${c.nullable ? '' : ' NOT NULL'}`);
    const key = columns.filter((c) => c.key).map((c) => ident(c.name)).join(', ');
    this.db.exec(`CREATE TABLE ${ident(table)} (${defs.join(', ')}, PRIMARY KEY (${key})) STRICT`);
    return Promise.resolve();
  }

  upsert(table: string, columns: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    try {
      const write = this.upserter(table, columns);
      for (const row of rows) write(row);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * The upsert of `table` as a synchronous writer of one row, kept for the same `columns` (the array, as a
   * RowMaker holds it): a snapshot writes each row as it is made, with no SQL text or array per batch.
   */
  upserter(table: string, columns: readonly Column[]): RowWriter {
    const kept = this.writers.get(table);
    if (kept?.columns === columns) return kept.write;
    const names = columns.map((c) => ident(c.name));
    const key = columns.filter((c) => c.key).map((c) => ident(c.name));
    const rest = columns.filter((c) => !c.key).map((c) => `${ident(c.name)} = excluded.${ident(c.name)}`);
    const statement = this.preparedFor(table, columns, `INSERT INTO ${ident(table)} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')}) ` +
      `ON CONFLICT (${key.join(', ')}) DO ${rest.length ? `UPDATE SET ${rest.join(', ')}` : 'NOTHING'}`);
    // A row SQLite refuses (a constraint or trigger of the user's) is named by its key: it is the row being written.
    const write: RowWriter = runTakesArray
      ? (row) => {
        try {
          statement.run(row);
        } catch (error) {
          throw sqliteRefusal(error, table, columns, row);
        }
      }
      : (row) => {
        try {
          statement.run(...row);
        } catch (error) {
          throw sqliteRefusal(error, table, columns, row);
        }
      };
    this.writers.set(table, { columns, write });
    return write;
  }

  remove(table: string, keys: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    try {
      const statement = this.preparedFor(table, keys, `DELETE FROM ${ident(table)} WHERE ${keys.map((k) => `${ident(k.name)} = ?`).join(' AND ')}`);
      for (const row of rows) {
        try {
          statement.run(...row);
        } catch (error) {
          throw sqliteRefusal(error, table, keys, row, true);
        }
      }
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The statement writing rows into `table`; one SQLite cannot prepare (a trigger of the table naming a missing table) is a refusal of the writes. */
  private preparedFor(table: string, columns: readonly Column[], sql: string): SqliteStatement {
    try {
      return this.prepared(sql);
    } catch (error) {
      throw sqliteRefusal(error, table, columns, undefined);
    }
  }

  swap(staging: string, table: string): Promise<void> {
    this.statements.clear();
    this.writers.clear();
    this.db.exec(`DROP TABLE IF EXISTS ${ident(table)}`);
    this.db.exec(`ALTER TABLE ${ident(staging)} RENAME TO ${ident(table)}`);
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.statements.clear();
    this.writers.clear();
    this.db.close();
    this.lockDb?.close();
    return Promise.resolve();
  }
}

/** Opens the SQLite target of `sqlite:<path>` (the file is created when missing). */
export function openSqliteTarget(path: string): SqlTarget {
  let db: SqliteConnection;
  try {
    db = openSqlite(path);
    db.exec('PRAGMA journal_mode = WAL');
    // WAL with NORMAL: a commit survives the process being killed (not a power cut, which loses at most the last commits).
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA busy_timeout = 10000');
    // SQLite's own page cache size (2,000 KiB), which node:sqlite keeps: better-sqlite3 is built with 16,000 KiB, which
    // a sync's one transaction fills as the table grows past it, so its RSS grew 13-14 MiB more at 1M records than
    // at 100k (the main malloc arena; bench/RESULTS.md). Rows are appended in key order: no CPU cost was measurable.
    db.exec('PRAGMA cache_size = -2000');
  } catch (error) {
    if (error instanceof SinkError) throw error;
    throw new SinkError(`cannot open SQLite database ${path}: ${(error as Error).message}`, 'unreachable', { cause: error });
  }
  return new SqliteTarget(`sqlite:${path}`, path, db);
}
