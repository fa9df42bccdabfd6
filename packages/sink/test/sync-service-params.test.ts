// The service URL's own query options (SAP's `sap-client=100`) in `sluice sync`: every request of the first load,
// of a load resumed from its kept next link and of a delta run carries them, and so does the link kept to resume
// from. The testkit's client-scoped delta service (node:http), which records request URLs, whose next and delta
// links omit `sap-client` and which answers a request without it with another client's data, as SAP does.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { startClientScopedDeltaServer, type TestServer } from '@sluice/testkit';
import { syncEntitySet } from '../src/index.js';
import { sqliteRows as rows } from './sync-helpers.js';

let srv: TestServer;
let od: ODataClient;
let dir: string;
const control = { failSecond: true };
const requested = (): string[] => srv.requests.map((r) => r.url);
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-sync-service-params-'));
  srv = await startClientScopedDeltaServer(control);
  od = createODataClient({ serviceURL: `${srv.origin}/odata/?sap-client=100`, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od?.close();
  await srv?.close();
  await rm(dir, { recursive: true, force: true });
});

function expectAllWithClient(): void {
  expect(requested().length).toBeGreaterThan(0);
  for (const r of requested()) expect(new URL(r, 'http://x').searchParams.get('sap-client'), r).toBe('100');
}

describe('syncEntitySet into SQLite from a service URL with sap-client', () => {
  it('keeps sap-client on every request and on the kept links: a load broken after its first page, its resumption, a delta run', async () => {
    const path = join(dir, 'items.db');
    const into = `sqlite:${path}`;
    const url = (p: string): string => `${srv.origin}/odata/${p}`;
    control.failSecond = true;
    await expect(syncEntitySet({ od, entitySet: 'Items', into })).rejects.toThrow();
    expect(rows(path, 'SELECT phase, resume_link FROM sluice_sync')).toEqual([{ phase: 'loading', resume_link: url('Items?$skiptoken=1&sap-client=100') }]);
    expectAllWithClient();

    srv.requests.length = 0;
    control.failSecond = false;
    expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ mode: 'delta' });
    expect(requested().filter((r) => !r.includes('$metadata'))).toEqual(['/odata/Items?$skiptoken=1&sap-client=100']);
    expect(rows(path, 'SELECT ID FROM Items ORDER BY ID')).toEqual([{ ID: 1 }, { ID: 2 }]);
    expect(rows(path, 'SELECT phase, resume_link FROM sluice_sync')).toEqual([{ phase: 'tracking', resume_link: url('Items?$deltatoken=1&sap-client=100') }]);
    expectAllWithClient();

    srv.requests.length = 0;
    expect(await syncEntitySet({ od, entitySet: 'Items', into })).toMatchObject({ run: 'delta' });
    expect(rows(path, 'SELECT ID FROM Items ORDER BY ID')).toEqual([{ ID: 1 }, { ID: 2 }, { ID: 3 }]);
    expect(rows(path, 'SELECT resume_link FROM sluice_sync')).toEqual([{ resume_link: url('Items?$deltatoken=2&sap-client=100') }]);
    expectAllWithClient();
  });
});
