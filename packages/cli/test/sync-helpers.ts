// Shared by the `sluice sync` tests: the testkit server with a request hook, the bundled CLI, changes to
// Orders, and which request is which (kills at random points: sync-kills.ts).
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

/** A request of a delta link or of its next pages. */
export const isDeltaPage = (req: IncomingMessage): boolean => /deltatoken/.test(req.url ?? '');
/** The first, full change-tracking read. */
export const isFullRead = (req: IncomingMessage): boolean => /\/Orders(\?|$)/.test(req.url ?? '') && req.headers['prefer'] === 'odata.track-changes';

/** A page of a change-tracking full read after its first (the testkit's next link of a paged load). */
export const isLoadPage = (req: IncomingMessage): boolean => /skiptoken=track-/.test(decodeURIComponent(req.url ?? ''));

