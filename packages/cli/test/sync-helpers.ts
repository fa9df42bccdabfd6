// Shared by the `sluice sync` tests: the testkit server with a request hook, the bundled CLI, changes to
// Orders, and runs killed with SIGKILL when the server sees a chosen request.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';

/** An order as the tests compare service and table. */
export interface Row { ID: number; Customer: string; Status: string; Amount: string; Quantity: string }

/** What a sync test file works with. */
export interface SyncKit {
  srv(): ODataTestServer;
  cli(): SluiceCLI;
  dir(): string;
  od(): ODataClient;
  /** Called for every request before it is served: kill a child, or hold the request. */
  hook: ((req: IncomingMessage) => void | Promise<void>) | undefined;
}

/** Starts the server (writes on, every request through `kit.hook`), the CLI bundle and a folder for the file. */
export function useSyncKit(): SyncKit {
  let srv: ODataTestServer | undefined;
  let cli: SluiceCLI | undefined;
  let dir: string | undefined;
  let od: ODataClient | undefined;
  const kit: SyncKit = { srv: () => srv!, cli: () => cli!, dir: () => dir!, od: () => od!, hook: undefined };
  beforeAll(async () => {
    [srv, cli, dir] = await Promise.all([
      startODataServer({ products: 1, writes: true, authorize: async (req) => { await kit.hook?.(req); return true; } }),
      sluiceCLI(),
      mkdtemp(join(tmpdir(), 'sluice-sync-cli-')),
    ]);
    od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { retry: false } });
  });
  afterAll(async () => {
    kit.hook = undefined;
    await od?.close();
    await srv?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
  return kit;
}

/** The service's orders in the compared form, by ID. */
export async function serviceRows(od: ODataClient): Promise<Row[]> {
  const rows = await od.from<Row>('Orders').list();
  return rows.map((r) => ({ ID: r.ID, Customer: r.Customer, Status: r.Status, Amount: String(r.Amount), Quantity: String(r.Quantity) })).sort((a, b) => a.ID - b.ID);
}

/** Nine changes: three updates, two deletes, four creates (Int64 above 2^53). */
export async function change(kit: SyncKit, tag: string): Promise<void> {
  const orders = kit.od().from('Orders');
  const ids = [...kit.srv().writes!.store.orders.keys()];
  for (const id of ids.slice(0, 3)) await orders.key(id).update({ Status: tag.slice(0, 20) }, { etag: '*' });
  for (const id of ids.slice(3, 5)) await orders.key(id).delete({ etag: '*' });
  for (let i = 0; i < 4; i++) await orders.create({ Customer: `${tag}-${i}`, Amount: `${i}.25`, Quantity: String(2n ** 60n + BigInt(i)) });
}

/** Runs `sluice sync` and SIGKILLs it when `when` sees the request it waits for; resolves with how it ended. */
export async function killedRun(kit: SyncKit, args: string[], when: (req: IncomingMessage, seen: number) => boolean): Promise<NodeJS.Signals | null> {
  let seen = 0;
  let child: ChildProcess | undefined;
  kit.hook = (req) => {
    if (when(req, ++seen)) child?.kill('SIGKILL');
  };
  try {
    child = kit.cli().spawn(args);
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal;
  } finally {
    kit.hook = undefined;
  }
}

/** A request of a delta link or of its next pages. */
export const isDeltaPage = (req: IncomingMessage): boolean => /deltatoken/.test(req.url ?? '');
/** The first, full change-tracking read. */
export const isFullRead = (req: IncomingMessage): boolean => /\/Orders(\?|$)/.test(req.url ?? '') && req.headers['prefer'] === 'odata.track-changes';

/** A page of a change-tracking full read after its first (the testkit's next link of a paged load). */
export const isLoadPage = (req: IncomingMessage): boolean => /skiptoken=track-/.test(decodeURIComponent(req.url ?? ''));

/** Runs `args` to the end; throws with its stderr when it fails. Resolves with the URL of its first read of Orders. */
async function cleanRun(kit: SyncKit, args: string[]): Promise<string | undefined> {
  const before = kit.srv().requests.length;
  const run = await kit.cli().run(args);
  if (run.code !== 0) throw new Error(`sync failed: ${run.stderr}`);
  return kit.srv().requests.slice(before).find((r) => /\/Orders/.test(r.url))?.url;
}

/**
 * Kills runs of `args` at its $metadata request and at the full read; then, the service paging its full
 * read one order a page, at the 2nd, 3rd and 2nd page requests of a load's successive runs, and the next
 * run (which resumes from a next link) completes it after orders were created, updated and deleted; then, after nine
 * changes, at the 2nd, 1st and 4th delta page request of successive runs. `check` runs after the load
 * completed and a delta run brought the changes made during it, and at the end.
 */
export async function killAndResume(kit: SyncKit, args: string[], check: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 6; i++) await kit.od().from('Orders').create({ Customer: `start-${i}`, Amount: '10.50', Quantity: '9007199254740993' });
  if (await killedRun(kit, args, (req) => /\$metadata/.test(req.url ?? '')) !== 'SIGKILL') throw new Error('not killed at $metadata');
  if (await killedRun(kit, args, isFullRead) !== 'SIGKILL') throw new Error('not killed at the full read');
  const writes = kit.srv().writes!;
  writes.fullReadPageSize = 1;
  try {
    for (const at of [2, 3, 2]) {
      let pages = 0;
      const killed = await killedRun(kit, args, (req) => (isFullRead(req) || isLoadPage(req)) && ++pages === at);
      if (killed !== 'SIGKILL') throw new Error(`not killed at load page ${at}`);
    }
    // Changes during the load: the loaded first order updated, the second deleted, one created.
    const [first, second] = [...writes.store.orders.keys()].sort((a, b) => a - b);
    await kit.od().from('Orders').key(first!).update({ Status: 'during' }, { etag: '*' });
    await kit.od().from('Orders').key(second!).delete({ etag: '*' });
    await kit.od().from('Orders').create({ Customer: 'during-load', Amount: '1.00', Quantity: '9007199254740995' });
    // The page requested next is read ahead of the commit of the one before: the run killed at its 3rd page
    // request had committed its first, so this run resumes from a next link.
    const resumedFrom = await cleanRun(kit, args);
    if (!/skiptoken=track-/.test(decodeURIComponent(resumedFrom ?? ''))) throw new Error(`the load did not resume from a next link but read ${resumedFrom}`);
  } finally {
    writes.fullReadPageSize = undefined;
  }
  await cleanRun(kit, args);
  await check();
  await change(kit, 'first');
  for (const at of [2, 1, 4]) {
    let pages = 0;
    if (await killedRun(kit, args, (req) => isDeltaPage(req) && ++pages === at) !== 'SIGKILL') throw new Error(`not killed at delta page ${at}`);
  }
  await cleanRun(kit, args);
  await check();
}
