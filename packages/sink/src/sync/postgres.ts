// The PostgreSQL target, on `pg` (pure JavaScript; an optional peer dependency). Rows go in by COPY, fed
// batch by batch as a page arrives (pg-run.ts): a page loaded into a table this connection created (a staging
// table) is one COPY straight into it; a run of a page's changes is one COPY into a temporary table, then one
// `INSERT ... ON CONFLICT ... DO UPDATE` (or `DELETE ... USING`) from it. The lock is a session advisory lock, released by the server when the
// connection goes away.
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { CopyEncoder } from './pg-copy.js';
import { PgRun, type RunHost } from './pg-run.js';
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

/** The PostgreSQL target (made by {@link openPostgresTarget}). */
export class PostgresTarget implements SqlTarget {
  readonly dialect = 'postgres' as const;
  /** Tables this connection created: nothing but the load writes into them. */
  private readonly created = new Set<string>();
  /** Temporary tables of a page's rows or keys, by table and columns (forgotten when a transaction rolls back). */
  private readonly temps = new Map<string, string>();
  private tempCount = 0;
  private readonly encoders = new Map<readonly Column[], CopyEncoder>();
  /** The run opened last: cancelled when its transaction fails before it ended. */
  private running: PgRun | undefined;
  private readonly host: RunHost;

  constructor(readonly name: string, private readonly client: PgClient) {
    this.host = { submit: (submittable) => client.query(submittable), query: (sql) => client.query(sql), temp: (table, columns) => this.temp(table, columns) };
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
      this.running = undefined;
      await this.client.query('COMMIT');
      return result;
    } catch (error) {
      // A COPY left open holds the connection: cancelled first, or the rollback would wait behind it.
      await this.running?.abort();
      await this.client.query('ROLLBACK').catch(() => undefined);
      this.temps.clear();
      this.running = undefined;
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

  /**
   * A run of rows of one kind into `table`, written batch by batch (see PgRun): copied straight in when this
   * connection created the table (a load), else through a temporary table (upserts, or the keys of a removal).
   */
  openRun(table: string, columns: readonly Column[], kind: 'upsert' | 'remove'): PgRun {
    const run = new PgRun(this.host, table, columns, this.encoder(columns), kind === 'upsert' && this.created.has(table) ? 'load' : kind);
    this.running = run;
    return run;
  }

  async upsert(table: string, columns: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    const run = this.openRun(table, columns, 'upsert');
    await run.add(rows);
    await run.end();
  }

  async remove(table: string, keys: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    const run = this.openRun(table, keys, 'remove');
    await run.add(rows);
    await run.end();
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
