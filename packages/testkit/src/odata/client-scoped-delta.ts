// An OData v4 service with change tracking that reads as SAP does with `sap-client`: a request without
// `sap-client=100` gets another client's data. Its next and delta links omit `sap-client`, so a client that
// does not add the service URL's own query options to them reads the wrong data.
import { edmxDocument, propertiesXML } from './edmx-text.js';
import { startServer, type TestServer } from '../http-server.js';

const METADATA = edmxDocument('4.0', 'Demo', `<EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>${propertiesXML({ ID: 'Edm.Int32!' })}</EntityType>` +
  '<EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>');

/** What {@link startClientScopedDeltaServer} answers; `failSecond`: the first load's second page is a 500. */
export interface ClientScopedDeltaControl {
  failSecond: boolean;
}

/**
 * Serves `Items` under `/odata/` (its service URL is `${origin}/odata/?sap-client=100`): with `sap-client=100`, a
 * first load of two pages (`{ID:1}`, next link `Items?$skiptoken=1`; `{ID:2}`, delta link `Items?$deltatoken=1`),
 * then a delta run from `$deltatoken=1` (`{ID:3}`, delta link `Items?$deltatoken=2`); without it, `{ID:999}` and
 * the delta link `Items?$deltatoken=99`. Every request is in the server's `requests`.
 */
export function startClientScopedDeltaServer(control: ClientScopedDeltaControl = { failSecond: false }): Promise<TestServer> {
  return startServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
    if (pathname.endsWith('/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }).end(METADATA);
      return;
    }
    const ctx = '"@odata.context":"$metadata#Items/$delta"';
    const json = { 'content-type': 'application/json', 'odata-version': '4.0' };
    if (searchParams.get('sap-client') !== '100') res.writeHead(200, json).end(`{${ctx},"value":[{"ID":999}],"@odata.deltaLink":"Items?$deltatoken=99"}`);
    else if (searchParams.get('$deltatoken') === '1') res.writeHead(200, json).end(`{${ctx},"value":[{"ID":3}],"@odata.deltaLink":"Items?$deltatoken=2"}`);
    else if (searchParams.get('$skiptoken') !== '1') res.writeHead(200, json).end(`{${ctx},"value":[{"ID":1}],"@odata.nextLink":"Items?$skiptoken=1"}`);
    else if (control.failSecond) res.writeHead(500, json).end('{"error":{"code":"X","message":"not now"}}');
    else res.writeHead(200, json).end(`{${ctx},"value":[{"ID":2}],"@odata.deltaLink":"Items?$deltatoken=1"}`);
  });
}
