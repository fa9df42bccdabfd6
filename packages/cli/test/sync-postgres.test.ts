// `sluice sync` through the real CLI into a real PostgreSQL (started by the testkit as `nobody` when root):
// runs killed with SIGKILL during the first load and delta reads, then run again; an unreachable server.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgresServer, type PostgresTestServer } from '@sluice/testkit';
import { killAndResume, serviceRows, useSyncKit, type Row } from './sync-helpers.js';

const kit = useSyncKit();
let server: PostgresTestServer;
let client: pg.Client;
beforeAll(async () => {
  server = await startPostgresServer();
  client = new pg.Client({ connectionString: server.url });
  await client.connect();
}, 120_000);
afterAll(async () => {
  await client?.end();
  await server?.close();
});

async function tableRows(): Promise<Row[]> {
  const { rows } = await client.query('SELECT "ID", "Customer", "Status", "Amount"::text AS "Amount", "Quantity"::text AS "Quantity" FROM orders ORDER BY "ID"');
  return rows as Row[];
}

describe('sluice sync into PostgreSQL', () => {
  it('killed with SIGKILL at several points of a first load and of delta reads, then run again: the table equals the service', async () => {
    const args = ['sync', kit.srv().v4, 'Orders', '--into', server.url, '--table', 'orders'];
    await killAndResume(kit, args, async () => {
      const rows = await tableRows();
      expect(rows).toEqual(await serviceRows(kit.od()));
      expect(new Set(rows.map((r) => r.ID)).size).toBe(rows.length);
    });
    const { rows } = await client.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename");
    expect(rows.map((r) => r['tablename'])).toEqual(['orders', 'sluice_sync']);
  }, 120_000);

  it('an unreachable server exits 1 naming it without the password', async () => {
    const r = await kit.cli().run(['sync', kit.srv().v4, 'Orders', '--into', `postgres://app:pa55word@127.0.0.1:${server.port + 1}/db`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sluice: cannot connect to PostgreSQL at postgres:\/\/app@127\.0\.0\.1:\d+\/db: ECONNREFUSED/);
    expect(r.stderr).not.toContain('pa55word');
  });
});
