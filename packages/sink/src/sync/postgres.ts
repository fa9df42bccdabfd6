// The PostgreSQL target, on `pg` (pure JavaScript; an optional peer dependency). A page is one
// `INSERT ... SELECT * FROM unnest($1::type[], ...) ON CONFLICT ... DO UPDATE` (and one `DELETE` per run of
// removals); the lock is a session advisory lock, released by the server when the connection goes away.
import { createRequire } from 'node:module';
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import type { SqlTarget, TableColumn } from './sql-target.js';
import { ident, sqlType } from './sql-types.js';

interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
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
  constructor(readonly name: string, private readonly client: PgClient) {}

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
  }

  async upsert(table: string, columns: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const names = columns.map((c) => ident(c.name));
    const key = columns.filter((c) => c.key).map((c) => ident(c.name));
    const rest = columns.filter((c) => !c.key).map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`);
    const arrays = columns.map((c, i) => `$${i + 1}::${arrayType(c)}`);
    await this.client.query(`INSERT INTO ${ident(table)} (${names.join(', ')}) SELECT * FROM unnest(${arrays.join(', ')}) ` +
      `ON CONFLICT (${key.join(', ')}) DO ${rest.length ? `UPDATE SET ${rest.join(', ')}` : 'NOTHING'}`, columns.map((_, i) => rows.map((r) => r[i])));
  }

  async remove(table: string, keys: readonly Column[], rows: readonly unknown[][]): Promise<void> {
    if (rows.length === 0) return;
    const names = keys.map((k) => ident(k.name)).join(', ');
    const arrays = keys.map((k, i) => `$${i + 1}::${arrayType(k)}`).join(', ');
    await this.client.query(`DELETE FROM ${ident(table)} WHERE (${names}) IN (SELECT * FROM unnest(${arrays}))`, keys.map((_, i) => rows.map((r) => r[i])));
  }

  async swap(staging: string, table: string): Promise<void> {
    await this.client.query(`DROP TABLE IF EXISTS ${ident(table)}`);
    await this.client.query(`ALTER TABLE ${ident(staging)} RENAME TO ${ident(table)}`);
    await this.client.query(`ALTER TABLE ${ident(table)} RENAME CONSTRAINT ${ident(`${staging}_pkey`)} TO ${ident(`${table}_pkey`)}`);
  }

  async close(): Promise<void> {
    await this.client.end().catch(() => undefined);
  }
}

/** The array type of a column for `unnest` (`numeric(12,2)[]`, `timestamp(3) with time zone[]`). */
function arrayType(column: Column): string {
  return `${sqlType('postgres', column)}[]`;
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
