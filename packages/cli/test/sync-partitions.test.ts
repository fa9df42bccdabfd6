// `sluice sync --mode snapshot --partitions N --parallel K` through the real CLI into SQLite and a real
// PostgreSQL: SIGKILLed in the middle of a partitioned load, first with no table yet, then over a complete
// table; the table is never partly loaded, and the next run completes it, keeping to --rate.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSqlite } from '@sluice/sink';
import { sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { startPostgresDatabase, type PostgresDatabase } from '../../sink/test/postgres.js';

const PRODUCTS = 600;
const RATE = 20;
const BURST = 3;
let hook: ((req: IncomingMessage) => void) | undefined;
let srv: ODataTestServer;
let cli: SluiceCLI;
let dir: string;
let postgres: PostgresDatabase;
beforeAll(async () => {
  [srv, cli, dir, postgres] = await Promise.all([
    startODataServer({ products: PRODUCTS, pageSize: 20, authorize: (req) => { hook?.(req); return Promise.resolve(true); } }),
    sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-sync-parts-cli-')), startPostgresDatabase(),
  ]);
}, 120_000);
afterAll(async () => {
  hook = undefined;
  await Promise.all([srv?.close(), postgres?.close()]);
  await rm(dir, { recursive: true, force: true });
});

/** A page of a partition (a range filter, not one of the plan's `$top=1` boundary reads). */
const isPartitionPage = (req: IncomingMessage): boolean => {
  const url = decodeURIComponent(req.url ?? '');
  return /\/Products\?.*\$filter=ID (lt|ge) /.test(url) && !url.includes('$top=1');
};

/** Runs `args` and SIGKILLs the CLI at the `at`th partition page request; resolves with the signal it ended by. */
async function killedAt(args: string[], at: number): Promise<NodeJS.Signals | null> {
  let seen = 0;
  let child: ChildProcess | undefined;
  hook = (req) => { if (isPartitionPage(req) && ++seen === at) child?.kill('SIGKILL'); };
  try {
    child = cli.spawn(args);
    child.stdout!.resume();
    child.stderr!.resume();
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal;
  } finally {
    hook = undefined;
  }
}

const all = Array.from({ length: PRODUCTS }, (_, i) => i + 1);

/** Killed mid-load with no table, run again, killed mid-reload over the complete table, run again. */
async function killAndComplete(args: string[], ids: () => Promise<number[] | undefined>, tables: () => Promise<string[]>): Promise<void> {
  expect(await killedAt(args, 7)).toBe('SIGKILL');
  expect(await ids()).toBeUndefined();
  const mark = srv.requests.length;
  const started = performance.now();
  const first = await cli.run(args);
  expect(first.code, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/\(snapshot, mode snapshot, 6 partitions\): 600 records loaded in /);
  expect(await ids()).toEqual(all);
  // --rate holds across the partitions read at once. The k-th request (from 0) leaves the bucket of `burst` tokens
  // (k + 1 - burst) / rate seconds after the child's start at the earliest (a request more is allowed for here) and
  // arrives later still: a bound that a stall of this test process (timestamping late) cannot break.
  const times = srv.requests.slice(mark).map((r) => r.at);
  const early = times.map((at, k) => ({ k, at: Math.round(at - started), least: ((k - BURST) / RATE) * 1000 })).filter((r) => r.at < r.least - 5);
  expect(early).toEqual([]);
  // And at most rate + burst in any second, with half a second of the rate as slack for such a stall.
  const perSecond = new Map<number, number>();
  for (const t of times) perSecond.set(Math.floor((t - times[0]!) / 1000), (perSecond.get(Math.floor((t - times[0]!) / 1000)) ?? 0) + 1);
  expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(RATE + BURST + RATE / 2);
  // Over a complete table: the table stays whole while the staging table is half loaded.
  expect(await killedAt(args, 12)).toBe('SIGKILL');
  expect(await ids()).toEqual(all);
  const again = await cli.run([...args, '--quiet']);
  expect(again).toMatchObject({ code: 0, stderr: '' });
  expect(await ids()).toEqual(all);
  expect(await tables()).toEqual(['products', 'sluice_sync']);
}

describe('sluice sync --mode snapshot --partitions', () => {
  it('SQLite: SIGKILLed mid-load, then mid-reload: never a partial table; the next run completes it', async () => {
    const path = join(dir, 'killed.db');
    const args = ['sync', srv.v4, 'Products', '--into', `sqlite:${path}`, '--table', 'products', '--mode', 'snapshot', '--partitions', '6', '--parallel', '3', '--rate', String(RATE), '--burst', String(BURST)];
    const query = (sql: string): Record<string, unknown>[] => {
      const db = openSqlite(path);
      try {
        return db.prepare(sql).all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    };
    await killAndComplete(args,
      () => Promise.resolve(query("SELECT name FROM sqlite_master WHERE name = 'products'").length ? query('SELECT ID FROM products ORDER BY ID').map((r) => Number(r['ID'])) : undefined),
      () => Promise.resolve(query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map((r) => String(r['name']))));
  }, 120_000);

  it('PostgreSQL: SIGKILLed mid-load, then mid-reload: never a partial table; the next run completes it', async () => {
    const args = ['sync', srv.v4, 'Products', '--into', postgres.url, '--table', 'products', '--mode', 'snapshot', '--partitions', '6', '--parallel', '6', '--rate', String(RATE), '--burst', String(BURST)];
    await killAndComplete(args,
      async () => {
        const exists = await postgres.client.query("SELECT to_regclass('products') IS NOT NULL AS ok");
        if (exists.rows[0]?.['ok'] !== true) return undefined;
        return (await postgres.client.query('SELECT "ID" FROM products ORDER BY "ID"')).rows.map((r: Record<string, unknown>) => Number(r['ID']));
      },
      () => postgres.tables());
  }, 120_000);

  it('bad input exits 2 naming the flag, before any record is read', async () => {
    const into = `sqlite:${join(dir, 'refused.db')}`;
    const mark = srv.requests.length;
    const cases: [string[], RegExp][] = [
      [['--partitions', '4'], /--partitions needs --mode snapshot/],
      [['--partitions', '4', '--mode', 'delta'], /--partitions needs --mode snapshot/],
      [['--parallel', '4', '--mode', 'snapshot'], /--parallel needs --partitions/],
      [['--burst', '4'], /--burst needs --rate/],
      [['--partitions', '4', '--mode', 'snapshot', '--parallel', '0'], /--parallel.*expected an integer from 1 to 256/],
      [['--partitions', '4', '--mode', 'snapshot', '--partition-by', 'Nope'], /--partition-by: "Nope" is not a property of Products/],
      [['--partitions', '4', '--mode', 'snapshot', '--partition-by', 'Name', '--boundaries', 'minmax'], /--boundaries: 'minmax' needs an integer property/],
    ];
    for (const [flags, message] of cases) {
      const r = await cli.run(['sync', srv.v4, 'Products', '--into', into, ...flags]);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(srv.requests.slice(mark).filter((r) => isPartitionPage({ url: r.url } as IncomingMessage))).toEqual([]);
  }, 60_000);
});
