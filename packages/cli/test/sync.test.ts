// `sluice sync` through the real CLI into SQLite against the testkit OData server's change tracking: runs
// killed with SIGKILL at random points of first loads and of delta reads (sync-kills.ts), then run again; two at once.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqlite } from '@sluice/sink';
import { isFullRead, serviceRows, useSyncKit, type Row } from './sync-helpers.js';
import { KILL_SEED, killAtRandom, runRow } from './sync-kills.js';

const kit = useSyncKit();

function query(path: string, sql: string, ...params: string[]): Record<string, unknown>[] {
  const db = openSqlite(path);
  try {
    return (db.prepare(sql).all(...params) as Record<string, unknown>[]).map((r) => ({ ...r }));
  } finally {
    db.close();
  }
}

const tableRows = (path: string, table = 'Orders'): Row[] =>
  query(path, `SELECT ID, Customer, Status, Amount, CAST(Quantity AS TEXT) AS Quantity FROM "${table}" ORDER BY ID`) as unknown as Row[];

describe('sluice sync into SQLite', () => {
  it(`killed with SIGKILL at random points of first loads, delta reads, a reload and a snapshot (seed ${KILL_SEED}), then run again: the table equals the service`, async () => {
    const path = join(kit.dir(), 'killed.db');
    const args = (table: string): string[] => ['sync', kit.srv().v4, 'Orders', '--into', `sqlite:${path}`, '--table', table, '--quiet'];
    const tables = await killAtRandom(kit, {
      dialect: 'sqlite',
      args,
      check: async (table) => {
        const rows = tableRows(path, table);
        expect(rows).toEqual(await serviceRows(kit.od()));
        expect(new Set(rows.map((r) => r.ID)).size).toBe(rows.length);
        expect(query(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%sluice_load'")).toEqual([]);
        expect(query(path, 'SELECT phase FROM sluice_sync WHERE table_name = ?', table)).toEqual([{ phase: 'tracking' }]);
      },
      state: (table) => Promise.resolve(runRow(query(path, 'SELECT run_upserted, run_deleted, resume_link, next_link FROM sluice_sync WHERE table_name = ?', table))),
      ids: (table) => Promise.resolve(query(path, `SELECT ID FROM "${table}" ORDER BY ID`).map((r) => Number(r['ID']))),
    });
    expect(query(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => r['name'])).toEqual([...tables, 'sluice_sync']);
    const summary = await kit.cli().run(args('a').filter((a) => a !== '--quiet'));
    expect(summary.stderr).toMatch(/^sluice: synced Orders into sqlite:.*killed\.db table a \(changes, mode delta\): 0 upserted, 0 deleted in /);
  }, 120_000);

  it('two syncs of one table at once: the second is refused (exit 1), the first completes', async () => {
    const path = join(kit.dir(), 'twice.db');
    const args = ['sync', kit.srv().v4, 'Orders', '--into', `sqlite:${path}`];
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => { arrived = resolve; });
    kit.hook = async (req) => {
      if (!isFullRead(req)) return;
      arrived();
      await held;
    };
    try {
      const first = kit.cli().run(args);
      await waiting;
      const second = await kit.cli().run(args);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/sluice: another sluice sync of table Orders in .*twice\.db is running/);
      release();
      const done = await first;
      expect(done.code).toBe(0);
      expect(done.stderr).toMatch(/table Orders \(load, mode delta\): \d+ records loaded in/);
    } finally {
      release();
      kit.hook = undefined;
    }
    expect(tableRows(path)).toEqual(await serviceRows(kit.od()));
  });

  it('a property newly in --select: the set is loaded again with the column, every row has its value', async () => {
    const path = join(kit.dir(), 'wider.db');
    const args = ['sync', kit.srv().v4, 'Orders', '--into', `sqlite:${path}`, '--select'];
    expect(await kit.cli().run([...args, 'ID,Customer,Amount,Quantity'])).toMatchObject({ code: 0 });
    const wider = await kit.cli().run([...args, 'ID,Customer,Amount,Quantity,Status']);
    expect(wider.code).toBe(0);
    expect(wider.stderr).toMatch(/new property Status of Orders: reloading Orders into a new table with this column/);
    expect(wider.stderr).toMatch(/table Orders \(reload, mode delta\): [\d,]+ records? loaded again into a new table in /);
    expect(tableRows(path)).toEqual(await serviceRows(kit.od()));
  });

  it('a row SQLite itself refuses (a trigger of the user\'s): exit 1 naming the table, SQLite\'s code, the set and the key, without the password; nothing applied', async () => {
    const path = join(kit.dir(), 'refused.db');
    const args = ['sync', kit.srv().v4, 'Orders', '--into', `sqlite:${path}`, '--table', 'Refused', '--user', 'sync-user'];
    const env = { SLUICE_PASSWORD: 's3cret-pw' };
    const created = await kit.od().from('Orders').create({ Customer: 'refused', Amount: '1.50', Quantity: '1' });
    const id = Number((created.value as { ID: number }).ID);
    expect(await kit.cli().run(args, { env })).toMatchObject({ code: 0 });
    const db = openSqlite(path);
    try {
      db.exec(`CREATE TRIGGER refused_status BEFORE UPDATE ON Refused WHEN NEW.Status = 'Blocked' BEGIN SELECT RAISE(ABORT, 'status Blocked is not allowed here'); END`);
    } finally {
      db.close();
    }
    const table = tableRows(path, 'Refused');
    const state = query(path, 'SELECT * FROM sluice_sync WHERE table_name = ?', 'Refused');
    await kit.od().from('Orders').key(id).update({ Status: 'Blocked' }, { etag: '*' });
    const refused = await kit.cli().run(args, { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`sluice: SQLite refused a row of table Refused: status Blocked is not allowed here (SQLITE_CONSTRAINT_TRIGGER) (entity set Orders, the record with key ID=${id})`);
    expect(refused.stderr).not.toMatch(/s3cret-pw|sync-user/);
    expect(tableRows(path, 'Refused')).toEqual(table);
    expect(query(path, 'SELECT * FROM sluice_sync WHERE table_name = ?', 'Refused')).toEqual(state);
  });

  it('bad input exits 2 before anything is read: no --into, an unknown scheme, a key left out of --select, a malformed kill hook or young-generation size', async () => {
    const srv = kit.srv();
    const before = srv.requests.length;
    const none = await kit.cli().run(['sync', srv.v4, 'Orders']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/sluice sync needs --into <target>/);
    const scheme = await kit.cli().run(['sync', srv.v4, 'Orders', '--into', 'mysql://db/x']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/unknown target scheme mysql:/);
    const select = await kit.cli().run(['sync', srv.v4, 'Orders', '--into', `sqlite:${join(kit.dir(), 'sel.db')}`, '--select', 'Customer']);
    expect(select.code).toBe(2);
    expect(select.stderr).toMatch(/--select leaves out the key ID of Orders/);
    const hook = await kit.cli().run(['sync', srv.v4, 'Orders', '--into', `sqlite:${join(kit.dir(), 'hook.db')}`], { env: { SLUICE_SYNC_KILL_AT: 'rows:1' } });
    expect(hook.code).toBe(2);
    expect(hook.stderr).toMatch(/SLUICE_SYNC_KILL_AT \(a test hook\) must be <step>:<n> with a step of copying, rows-written, .* got "rows:1"/);
    const young = await kit.cli().run(['sync', srv.v4, 'Orders', '--into', `sqlite:${join(kit.dir(), 'young.db')}`], { env: { SLUICE_YOUNG_GENERATION_MIB: '8MiB' } });
    expect(young.code).toBe(2);
    expect(young.stderr).toMatch(/SLUICE_YOUNG_GENERATION_MIB must be an integer from 0 to 1024 .* not "8MiB"/);
    expect(srv.requests.slice(before).filter((r) => /\/Orders/.test(r.url))).toEqual([]);
  }, 60_000);
});
