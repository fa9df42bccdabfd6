import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll } from 'vitest';
import { createODataClient, type ODataClient, type ODataClientOptions } from '../src/index.js';

/**
 * Starts the test server with its writable part for the file's tests and closes it, and every client
 * made with `client()`, after them.
 */
export function useWriteServer(): { server(): ODataTestServer; client(version: '2.0' | '4.0', extra?: Partial<ODataClientOptions>): ODataClient; track(od: ODataClient): ODataClient } {
  let srv: ODataTestServer | undefined;
  const clients: ODataClient[] = [];
  beforeAll(async () => {
    srv = await startODataServer({ products: 3, writes: true });
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) await c.close();
    await srv?.close();
  });
  const track = (od: ODataClient): ODataClient => {
    clients.push(od);
    return od;
  };
  return {
    server: () => srv!,
    track,
    client: (version, extra = {}) =>
      track(createODataClient({ serviceURL: version === '4.0' ? srv!.v4 : srv!.v2, version, http: { retry: false }, ...extra })),
  };
}
