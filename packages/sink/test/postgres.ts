// A real PostgreSQL for one test file with a connected `pg` client: the testkit's startPostgresServer (which
// stays free of the driver) and the client, stopped together. The sink's and the CLI's PostgreSQL tests use it.
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgresServer } from '@sluice/testkit';

/** A running PostgreSQL (`postgres` user, trust authentication) and a client connected to it. */
export interface PostgresDatabase {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  readonly client: pg.Client;
  /** The tables of the `public` schema, by name. */
  tables(): Promise<string[]>;
  /** Ends the client, stops the server and removes its folder. */
  close(): Promise<void>;
}

/** Starts a PostgreSQL cluster (initdb + postgres in a temporary folder, as `nobody` when root) and connects a client. */
export async function startPostgresDatabase(): Promise<PostgresDatabase> {
  const server = await startPostgresServer();
  const client = new pg.Client({ connectionString: server.url });
  try {
    await client.connect();
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    url: server.url,
    port: server.port,
    client,
    async tables() {
      const { rows } = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
      return rows.map((r: Record<string, unknown>) => String(r['tablename']));
    },
    async close() {
      await client.end();
      await server.close();
    },
  };
}

/** A database for the tests of one file: started before them (a slow start-up is allowed for), stopped after them. */
export function usePostgres(): () => PostgresDatabase {
  let db: PostgresDatabase | undefined;
  beforeAll(async () => {
    db = await startPostgresDatabase();
  }, 120_000);
  afterAll(() => db?.close());
  return () => {
    if (db === undefined) throw new Error('the PostgreSQL of this test file is not started (usePostgres() is for tests, after beforeAll)');
    return db;
  };
}
