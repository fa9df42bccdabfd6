// The PostgreSQL target, on `pg` (pure JavaScript; an optional peer dependency). Rows go in by COPY: a
// page loaded into a table this connection created (a staging table) is one COPY straight into it; a page
// of changes is one COPY into a temporary table, then one `INSERT ... ON CONFLICT ... DO UPDATE` (or
// `DELETE ... USING`) from it. The lock is a session advisory lock, released by the server when the
// connection goes away.
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { copyRows, CopyEncoder, type SubmitQuery } from './pg-copy.js';
import { copyLine, firstRefused, isDatabaseError, refusal, refusesValues } from './pg-refused.js';
import type { SqlTarget, TableColumn } from './sql-target.js';
import { ident, sqlType } from './sql-types.js';

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  query(submittable: Writable): Writable;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): void;
}

type PgClientClass = new (config: { connectionString: string; application_name?: string; connectionTimeoutMillis?: number }) => PgClient;

/** `pg`, resolved from this package or from the working directory (a CLI installed globally). */
function loadPg(): PgClientClass {
  for (const base of [import.meta.url, `${process.cwd()}/`]) {
    try {
      return (createRequire(base)('pg') as { Client: PgClientClass }).Client;
    } catch {
      // not installed there: try the next place
    }
  }
  throw new SinkError('PostgreSQL needs the pg package beside sluice (npm install pg)', 'driver');
}

/** The URL without its password, for messages: `postgres://app@db:5432/sales`. */
export function describePostgres(url: string): string {
  try {
    const u = new URL(url);
    return `postgres://${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

class PostgresTarget implements SqlTarget {
  readonly dialect = 'postgres' as const;
  /** Tables this connection created: nothing but the load writes into them. */
  private readonly created = new Set<string>();
  /** Temporary tables of a page's rows or keys, by table and columns (forgotten when a transaction rolls back). */
  private readonly temps = new Map<string, string>();
  private tempCount = 0;
  private readonly encoders = new Map<readonly Column[], CopyEncoder>();
  private readonly submit: SubmitQuery;

  constructor(readonly name: string, private readonly client: PgClient) {
    this.submit = (submittable) => client.query(submittable);
  }

  async lock(table: string): Promise<void> {
    const { rows } = await this.client.query('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [`sluice_sync:${table}`]);
    if (rows[0]?.['ok'] !== true) throw new SinkError(`another sluice sync of table ${table} in ${this.name} is running (it holds its advisory lock); this one stops without changing anything`, 'locked');
  }

  async query(sql: string, params: readonly unknown[] = []): Promise<Record<string, unknown>[]> {
    return (await this.client.query(sql, [...params])).rows;
  }

  async exec(sql: string, params: readonly unknown[] = []): Promise<void> {
    await this.client.query(sql, [...params]);
  }

  async transaction<T>(work: () => Promise<T>): Promise<T> {
    await this.client.query('BEGIN');
    try {
      const result = await work();
      await this.client.query('COMMIT');
      return result;
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      this.temps.clear();
      throw error;
    }
  }

  async describe(table: string): Promise<TableColumn[] | undefined> {
    const { rows } = await this.client.query(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
              coalesce(a.attnum = ANY(i.indkey), false) AS key
         FROM pg_attribute a
         LEFT JOIN pg_index i ON i.indrelid = a.attrelid AND i.indisprimary
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`, [ident(table)]);
    if (rows.length === 0) return undefined;
    return rows.map((r) => ({ name: String(r['name']), type: String(r['type']).toLowerCase(), key: r['key'] === true }));
  }

  async createTable(table: string, columns: readonly Column[]): Promise<void> {
    const defs = columns.map((c) => `${ident(c.name)} ${sqlType('postgres', c)}${c.nullable ? '' : ' NOT NULL'}`);
    const key = columns.filter((c) => c.key).map((c) => ident(c.name)).join(', ');
    await this.client.query(`CREATE TABLE ${ident(table)} (${defs.join(', ')}, CONSTRAINT ${ident(`${table}_pkey`)} PRIMARY KEY (${key}))`);
    this.created.add(table);
  }

  private encoder(columns: readonly Column[]): CopyEncoder {
    let encoder = this.encoders.get(columns);
    if (encoder === undefined) this.encoders.set(columns, (encoder = new CopyEncoder(columns)));
    return encoder;
  }

  /** An empty temporary table with `columns` of `table` (their types, no constraint), created on first use. */
  private async temp(table: string, columns: readonly Column[]): Promise<string> {
    const names = columns.map((c) => ident(c.name)).join(', ');
    const id = `${table}\u0000${names}`;
    let temp = this.temps.get(id);
    if (temp === undefined) {
      temp = `sluice_page_${++this.tempCount}`;
      await this.client.query(`CREATE TEMPORARY TABLE IF NOT EXISTS ${ident(temp)} AS SELECT ${names} FROM ${ident(table)} WITH NO DATA`);
      this.temps.set(id, temp);
    }
    return temp;
  }

  async upsert(table: string, columns: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const encoder = this.encoder(columns);
    if (this.created.has(table)) {
      // A load: the keys are new, so the rows are copied straight in; a key there already (a service whose
      // pages overlap) fails the COPY, undone to the savepoint, and the page goes the upsert way below.
      await this.client.query('SAVEPOINT sluice_copy');
      try {
        await copyRows(this.submit, table, columns, encoder, rows);
        await this.client.query('RELEASE SAVEPOINT sluice_copy');
        return;
      } catch (error) {
        if ((error as { constraint?: unknown }).constraint !== `${table}_pkey`) throw this.copyRefused(error, table, columns, rows);
        await this.client.query('ROLLBACK TO SAVEPOINT sluice_copy');
      }
    }
    const names = columns.map((c) => ident(c.name)).join(', ');
    const key = columns.filter((c) => c.key).map((c) => ident(c.name));
    const rest = columns.filter((c) => !c.key).map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`);
    await this.fromTemp(table, columns, rows, (temp) => `WITH page AS (DELETE FROM ${ident(temp)} RETURNING *) INSERT INTO ${ident(table)} (${names}) SELECT ${names} FROM page ` +
      `ON CONFLICT (${key.join(', ')}) DO ${rest.length ? `UPDATE SET ${rest.join(', ')}` : 'NOTHING'}`);
  }

  async remove(table: string, keys: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const match = keys.map((k) => `t.${ident(k.name)} = page.${ident(k.name)}`).join(' AND ');
    await this.fromTemp(table, keys, rows, (temp) => `WITH page AS (DELETE FROM ${ident(temp)} RETURNING *) DELETE FROM ${ident(table)} t USING page WHERE ${match}`, true);
  }

  /** A failed COPY of `rows` into `table`: PostgreSQL's refusal named with the row of the line it gives. */
  private copyRefused(error: unknown, table: string, columns: readonly Column[], rows: readonly unknown[][], removal = false): unknown {
    if (!isDatabaseError(error)) return error;
    const at = copyLine(error);
    return refusal(error, table, columns, at && rows[at.line - 1], at?.column, removal);
  }

  /**
   * Copies `rows` into a temporary table, then runs `statement(temp)`, which applies them to `table`. When
   * PostgreSQL refuses a value there (a constraint, a trigger), the statement is undone to its savepoint and
   * shorter prefixes of the page are tried (each undone) to name the first refused row.
   */
  private async fromTemp(table: string, columns: readonly Column[], rows: readonly unknown[][], statement: (temp: string) => string, removal = false): Promise<void> {
    const temp = await this.temp(table, columns);
    const encoder = this.encoder(columns);
    try {
      await copyRows(this.submit, temp, columns, encoder, rows);
    } catch (error) {
      throw this.copyRefused(error, table, columns, rows, removal);
    }
    const sql = statement(temp);
    try {
      // One round trip: the savepoint is taken, the statement run, the savepoint let go (skipped when it fails).
      await this.client.query(`SAVEPOINT sluice_apply; ${sql}; RELEASE SAVEPOINT sluice_apply`);
    } catch (error) {
      if (!isDatabaseError(error) || !refusesValues(error)) throw isDatabaseError(error) ? refusal(error, table, columns, undefined) : error;
      await this.client.query('ROLLBACK TO SAVEPOINT sluice_apply');
      const row = await firstRefused(rows, async (count) => {
        await this.client.query(`SAVEPOINT sluice_try; DELETE FROM ${ident(temp)}`);
        try {
          await copyRows(this.submit, temp, columns, encoder, rows.slice(0, count));
          await this.client.query(sql);
          return false;
        } catch (attempt) {
          if (!isDatabaseError(attempt)) throw attempt;
          return true;
        } finally {
          await this.client.query('ROLLBACK TO SAVEPOINT sluice_try; RELEASE SAVEPOINT sluice_try');
        }
      });
      throw refusal(error, table, columns, row, undefined, removal);
    }
  }

  async swap(staging: string, table: string): Promise<void> {
    this.created.delete(staging);
    await this.client.query(`DROP TABLE IF EXISTS ${ident(table)}`);
    await this.client.query(`ALTER TABLE ${ident(staging)} RENAME TO ${ident(table)}`);
    await this.client.query(`ALTER TABLE ${ident(table)} RENAME CONSTRAINT ${ident(`${staging}_pkey`)} TO ${ident(`${table}_pkey`)}`);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** Connects to the PostgreSQL of `url`; an unreachable server or refused login is a SinkError `unreachable` (no password in it). */
export async function openPostgresTarget(url: string): Promise<SqlTarget> {
  const Client = loadPg();
  const name = describePostgres(url);
  // Something that accepts the connection but never answers as PostgreSQL would (a wrong port) must not hang the sync.
  const client = new Client({ connectionString: url, application_name: 'sluice sync', connectionTimeoutMillis: 30_000 });
  // A connection lost later surfaces as the failure of the query in flight.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const reason = (error as { code?: string }).code ?? (error as Error).message;
    throw new SinkError(`cannot connect to PostgreSQL at ${name}: ${String(reason).replace(url, name)}`, 'unreachable', { cause: error });
  }
  return new PostgresTarget(name, client);
}
