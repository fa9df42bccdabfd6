import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writingTour } from '../../../examples/odata-writing.js';

// Runs examples/odata-writing.ts (the README's "Writing" examples) against the test server with SAP CSRF on.
let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 3, writes: { csrf: true } });
});
afterAll(() => srv.close());

describe('examples/odata-writing.ts', () => {
  it('runs every step of the writing tour', async () => {
    const seen = await writingTour(srv.v4, srv.v2);
    expect(seen).toEqual([
      expect.stringMatching(/^created http:\/\/127\.0\.0\.1:\d+\/odata\/v4\/demo\/Orders\(\d+\) etag W\/"1"$/),
      'updated, etag W/"1" -> W/"2"',
      '412: changed meanwhile, now W/"2"',
      'modified since the update: false',
      expect.stringMatching(/^SAP order \d+ created and merged$/),
      'action: Approved',
      "function: O'Neil|2",
      expect.stringMatching(/^job Succeeded after 3 polls, result at .*\/\$jobs\/\d+\/result: Succeeded$/),
      'failed job reported',
      'deleted',
    ]);
    // one token per client: the v4 client ('auto') learned it from its first 403, the SAP client (true) fetched first
    expect(srv.writes!.csrf!.fetches).toBe(2);
  });
});
