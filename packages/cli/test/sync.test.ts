// `sluice sync` through the real CLI into SQLite against the testkit OData server's change tracking: runs
// killed with SIGKILL at several points of a first load and of a delta read, then run again; two at once.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { openSqlite } from '@sluice/sink';
import { sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';

let srv: ODataTestServer;
let cli: SluiceCLI;
let dir: string;
let od: ODataClient;
/** Called for every request before it is served: kill a child, or hold the request. */
let hook: ((req: IncomingMessage) => void | Promise<void>) | undefined;

beforeAll(async () => {
  [srv, cli, dir] = await Promise.all([
    startODataServer({ products: 1, writes: true, authorize: async (req) => { await hook?.(req); return true; } }),
    sluiceCLI(),
    mkdtemp(join(tmpdir(), 'sluice-sync-cli-')),
  ]);
  od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  hook = undefined;
  await od.close();
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

interface Row { ID: number; Customer: string; Status: string; Amount: string; Quantity: string }

function tableRows(path: string): Row[] {
  const db = openSqlite(path);
  try {
    return (db.prepare('SELECT ID, Customer, Status, Amount, CAST(Quantity AS TEXT) AS Quantity FROM Orders ORDER BY ID').all() as Row[]).map((r) => ({ ...r }));
  } finally {
    db.close();
  }
}

async function serviceRows(): Promise<Row[]> {
  const rows = await od.from<Row>('Orders').list();
  return rows.map((r) => ({ ID: r.ID, Customer: r.Customer, Status: r.Status, Amount: String(r.Amount), Quantity: String(r.Quantity) })).sort((a, b) => a.ID - b.ID);
}

async function change(tag: string): Promise<void> {
  const orders = od.from('Orders');
  const ids = [...srv.writes!.store.orders.keys()];
  for (const id of ids.slice(0, 3)) await orders.key(id).update({ Status: tag.slice(0, 20) }, { etag: '*' });
  for (const id of ids.slice(3, 5)) await orders.key(id).delete({ etag: '*' });
  for (let i = 0; i < 4; i++) await orders.create({ Customer: `${tag}-${i}`, Amount: `${i}.25`, Quantity: String(2n ** 60n + BigInt(i)) });
}

/** Runs `sluice sync` and SIGKILLs it when `when` sees the request it waits for; resolves with how it ended. */
async function killedRun(args: string[], when: (req: IncomingMessage, seen: number) => boolean): Promise<NodeJS.Signals | null> {
  let seen = 0;
  let child: ChildProcess | undefined;
  hook = (req) => {
    if (when(req, ++seen)) child?.kill('SIGKILL');
  };
  try {
    child = cli.spawn(args);
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal;
  } finally {
    hook = undefined;
  }
}

const isDeltaPage = (req: IncomingMessage): boolean => /deltatoken/.test(req.url ?? '');
const isFullRead = (req: IncomingMessage): boolean => /\/Orders(\?|$)/.test(req.url ?? '') && req.headers['prefer'] === 'odata.track-changes';

describe('sluice sync into SQLite', () => {
  it('killed with SIGKILL at several points of a first load and of delta reads, then run again: the table equals the service', async () => {
    for (let i = 0; i < 6; i++) await od.from('Orders').create({ Customer: `start-${i}`, Amount: '10.50', Quantity: '9007199254740993' });
    const path = join(dir, 'killed.db');
    const args = ['sync', srv.v4, 'Orders', '--into', `sqlite:${path}`];
    // First load: killed at $metadata, then at the full read (its page not committed, or committed).
    expect(await killedRun(args, (req) => /\$metadata/.test(req.url ?? ''))).toBe('SIGKILL');
    expect(await killedRun(args, isFullRead)).toBe('SIGKILL');
    const loaded = await cli.run(args);
    expect(loaded.code).toBe(0);
    expect(loaded.stderr).toMatch(/sluice: synced Orders into sqlite:.*killed\.db table Orders \(load, mode delta\): \d+ records loaded in/);
    expect(tableRows(path)).toEqual(await serviceRows());

    // Delta reads of 9 changes in pages of two: killed at the 2nd, 1st and 4th page request of successive runs
    // (an interrupted delta read starts again from its delta link).
    await change('first');
    for (const at of [2, 1, 4]) {
      let pages = 0;
      expect(await killedRun(args, (req) => isDeltaPage(req) && ++pages === at)).toBe('SIGKILL');
    }
    const caughtUp = await cli.run(args);
    expect(caughtUp.code).toBe(0);
    expect(tableRows(path)).toEqual(await serviceRows());

    // Killed again mid-delta, then changes made meanwhile: the next run brings both.
    await change('second');
    expect(await killedRun(args, (req, n) => isDeltaPage(req) && n > 2)).toBe('SIGKILL');
    await change('third');
    const last = await cli.run([...args, '--quiet']);
    expect(last).toMatchObject({ code: 0, stderr: '' });
    const rows = tableRows(path);
    expect(rows).toEqual(await serviceRows());
    expect(new Set(rows.map((r) => r.ID)).size).toBe(rows.length);
  });

  it('two syncs of one table at once: the second is refused (exit 1), the first completes', async () => {
    const path = join(dir, 'twice.db');
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let arrived!: () => void;
    const waiting = new Promise<void>((resolve) => { arrived = resolve; });
    hook = async (req) => {
      if (!isFullRead(req)) return;
      arrived();
      await held;
    };
    try {
      const first = cli.run(['sync', srv.v4, 'Orders', '--into', `sqlite:${path}`]);
      await waiting;
      const second = await cli.run(['sync', srv.v4, 'Orders', '--into', `sqlite:${path}`]);
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/sluice: another sluice sync of table Orders in .*twice\.db is running/);
      release();
      expect((await first).code).toBe(0);
    } finally {
      release();
      hook = undefined;
    }
    expect(tableRows(path)).toEqual(await serviceRows());
  });

  it('bad input exits 2 before anything is read: no --into, an unknown scheme, a key left out of --select', async () => {
    const before = srv.requests.length;
    const none = await cli.run(['sync', srv.v4, 'Orders']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/sluice sync needs --into <target>/);
    const scheme = await cli.run(['sync', srv.v4, 'Orders', '--into', 'mysql://db/x']);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toMatch(/unknown target scheme mysql:/);
    const select = await cli.run(['sync', srv.v4, 'Orders', '--into', `sqlite:${join(dir, 'sel.db')}`, '--select', 'Customer']);
    expect(select.code).toBe(2);
    expect(select.stderr).toMatch(/--select leaves out the key ID of Orders/);
    expect(srv.requests.slice(before).filter((r) => /\/Orders/.test(r.url))).toEqual([]);
  });
});
