// Shared by the tests of rows a database itself refuses: a node:http OData v4 service of Items (ID, Name, Qty)
// whose full read is `pages` (next links by $skiptoken, a delta link on the last) and whose delta page is `delta`.
import { afterAll, beforeAll } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { edmxDocument, propertiesXML, sendJSON, startServer, type TestServer } from '@sluice/testkit';

const METADATA = edmxDocument('4.0', 'Demo', [
  '<EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>',
  propertiesXML({ ID: 'Edm.Int32!', Name: 'Edm.String', Qty: 'Edm.Int32' }),
  '</EntityType><EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>',
].join(''));

/** What the service sends, set by the tests; `od` is a client of it (made with `http` options, no retries). */
export interface ItemsService {
  pages: unknown[][];
  delta: unknown[];
  /** Run before the service answers for page `page` (0-based) of a full read. */
  beforePage: ((page: number) => void | Promise<void>) | undefined;
  od(): ODataClient;
}

/** Starts the service for the file's tests; `headers` are sent with every request of the client. */
export function useItemsService(headers?: Record<string, string>): ItemsService {
  let srv: TestServer | undefined;
  let od: ODataClient | undefined;
  const service: ItemsService = { pages: [], delta: [], beforePage: undefined, od: () => od! };
  beforeAll(async () => {
    srv = await startServer(async (req, res) => {
      const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
      const version = { 'odata-version': '4.0' };
      const token = Number(searchParams.get('$deltatoken') ?? 0);
      const skip = Number(searchParams.get('$skiptoken') ?? 0);
      if (pathname === '/odata/$metadata') res.writeHead(200, { 'content-type': 'application/xml', ...version }).end(METADATA);
      else if (pathname === '/odata/Items' && token > 0) {
        sendJSON(res, 200, { '@odata.context': '$metadata#Items', value: service.delta, '@odata.deltaLink': `Items?$deltatoken=${token + 1}` }, version);
      } else if (pathname === '/odata/Items') {
        await service.beforePage?.(skip);
        const last = skip + 1 >= service.pages.length;
        sendJSON(res, 200, {
          '@odata.context': '$metadata#Items', value: service.pages[skip] ?? [],
          ...(last ? { '@odata.deltaLink': 'Items?$deltatoken=1' } : { '@odata.nextLink': `Items?$skiptoken=${skip + 1}` }),
        }, version);
      } else sendJSON(res, 404, { error: { code: '404', message: 'not found' } }, version);
    });
    od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false, ...(headers === undefined ? {} : { headers }) } });
  });
  afterAll(async () => {
    await od?.close();
    await srv?.close();
  });
  return service;
}
