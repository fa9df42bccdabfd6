// `sluice sync` through the real CLI into a real PostgreSQL (started by the testkit as `nobody` when root):
// runs killed with SIGKILL at random points of first loads and of delta reads (sync-kills.ts), then run again; an
// unreachable server.
import { describe, expect, it } from 'vitest';
import { serviceRows, useSyncKit, type Row } from './sync-helpers.js';
import { KILL_SEED, killAtRandom, runRow } from './sync-kills.js';
import { usePostgres } from '../../sink/test/postgres.js';

const kit = useSyncKit();
const postgres = usePostgres();

async function tableRows(table: string): Promise<Row[]> {
  const { rows } = await postgres().client.query(`SELECT "ID", "Customer", "Status", "Amount"::text AS "Amount", "Quantity"::text AS "Quantity" FROM "${table}" ORDER BY "ID"`);
  return rows as Row[];
}

describe('sluice sync into PostgreSQL', () => {
  it(`killed with SIGKILL at random points of first loads, delta reads, a reload and a snapshot (seed ${KILL_SEED}), then run again: the table equals the service`, async () => {
    const made = await killAtRandom(kit, {
      dialect: 'postgres',
      args: (table) => ['sync', kit.srv().v4, 'Orders', '--into', postgres().url, '--table', table, '--quiet'],
      check: async (table) => {
        const rows = await tableRows(table);
        expect(rows).toEqual(await serviceRows(kit.od()));
        expect(new Set(rows.map((r) => r.ID)).size).toBe(rows.length);
        expect((await postgres().tables()).filter((t) => t.endsWith('sluice_load'))).toEqual([]);
        const { rows: state } = await postgres().client.query('SELECT phase FROM sluice_sync WHERE table_name = $1', [table]);
        expect(state).toEqual([{ phase: 'tracking' }]);
      },
      state: async (table) => runRow((await postgres().client.query('SELECT run_upserted, run_deleted, resume_link, next_link FROM sluice_sync WHERE table_name = $1', [table])).rows),
      ids: async (table) => (await postgres().client.query(`SELECT "ID" FROM "${table}" ORDER BY "ID"`)).rows.map((r: Record<string, unknown>) => Number(r['ID'])),
    });
    expect(await postgres().tables()).toEqual([...made, 'sluice_sync']);
  }, 120_000);

  it('an unreachable server exits 1 naming it without the password', async () => {
    const r = await kit.cli().run(['sync', kit.srv().v4, 'Orders', '--into', `postgres://app:pa55word@127.0.0.1:${postgres().port + 1}/db`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sluice: cannot connect to PostgreSQL at postgres:\/\/app@127\.0\.0\.1:\d+\/db: ECONNREFUSED/);
    expect(r.stderr).not.toContain('pa55word');
  });
});
