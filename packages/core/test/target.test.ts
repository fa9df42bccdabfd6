import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { createClient } from '@sluice/core';

describe('absolute URLs are sent exactly as written when they need no encoding (undici transport)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res) => sendJSON(res, 200, { url: req.url }));
  });
  afterAll(() => server.close());

  it('keeps apostrophes and $ in a query on a client without a base URL', async () => {
    const echo = await createClient().getJSON<{ url: string }>(`${server.origin}/svc/Products?$filter=Name%20eq%20'O''Brien'&$skiptoken=10`);
    expect(echo.url).toBe("/svc/Products?$filter=Name%20eq%20'O''Brien'&$skiptoken=10");
  });

  it('keeps them for another origin than the base URL too', async () => {
    const c = createClient({ baseURL: 'http://127.0.0.1:9/api' });
    const echo = await c.getJSON<{ url: string }>(`${server.origin}/x?k='a'`);
    expect(echo.url).toBe("/x?k='a'");
  });

  it('still encodes what must be encoded', async () => {
    const echo = await createClient().getJSON<{ url: string }>(`${server.origin}/x?q=a b&n=ü`);
    expect(echo.url).toBe('/x?q=a%20b&n=%C3%BC');
  });
});
