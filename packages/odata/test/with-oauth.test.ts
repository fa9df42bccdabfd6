import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauth2 } from '@sluice/oauth';
import { sendJSON, startODataServer, startServer, type ODataTestServer, type TestServer } from '@sluice/testkit';
import { createODataClient } from '@sluice/odata';

describe('OData over the OAuth plugin', () => {
  let odata: ODataTestServer;
  let auth: TestServer;
  beforeAll(async () => {
    odata = await startODataServer({ products: 250, pageSize: 100 });
    auth = await startServer((_req, res) => sendJSON(res, 200, { access_token: 'odata-token', token_type: 'Bearer', expires_in: 3600 }));
  });
  afterAll(async () => {
    await odata.close();
    await auth.close();
  });

  it('every page request, next links included, carries the bearer token fetched once', async () => {
    const od = createODataClient({
      serviceURL: odata.v4,
      version: '4.0',
      http: { plugins: [oauth2({ clientId: 'reader', clientSecret: 'secret', tokenURL: `${auth.origin}/token`, grantType: 'client_credentials' })] },
    });
    let records = 0;
    for await (const item of od.from('Products').stream()) if ('value' in item) records++;
    await od.close();
    expect(records).toBe(250);
    const pages = odata.requests.filter((r) => r.url.includes('/Products'));
    expect(pages).toHaveLength(3);
    expect(pages.every((r) => r.headers.authorization === 'Bearer odata-token')).toBe(true);
    expect(auth.requests).toHaveLength(1);
  });
});
