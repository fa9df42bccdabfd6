// A value that is no valid literal of its EDM type names what it was given for: the function parameter,
// the key property or the filtered property (not just "literal"), and nothing is sent.
import { ConfigError } from '@sluice/core';
import { startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const EDMX = '<?xml version="1.0"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>' +
  '<Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">' +
  '<EntityType Name="Product"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Stock" Type="Edm.Int32"/></EntityType>' +
  '<Function Name="Top"><Parameter Name="Count" Type="Edm.Int32"/><ReturnType Type="Collection(S.Product)"/></Function>' +
  '<EntityContainer Name="C"><EntitySet Name="Products" EntityType="S.Product"/><FunctionImport Name="Top" Function="S.Top" EntitySet="Products"/></EntityContainer>' +
  '</Schema></edmx:DataServices></edmx:Edmx>';

async function configError(call: () => Promise<unknown>): Promise<ConfigError> {
  const error = await call().then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('invalid literals name their parameter or property', () => {
  it('function parameter, key property and filter value', async () => {
    const server = await startServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }); res.end(EDMX); });
    servers.push(server);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true, http: { retry: false } });
    clients.push(od);
    await od.metadata();
    const before = server.requests.length;

    const param = await configError(() => od.function('Top', { Count: 'lots' }).execute());
    expect(param.option).toBe('parameter Count');
    expect(param.message).toBe('parameter Count: "lots" is not a valid Int32');

    const key = await configError(() => od.from('Products').key('lots').get());
    expect(key.option).toBe('key property ID');
    expect(key.message).toBe('key property ID: "lots" is not a valid Int32');

    const filter = await configError(() => od.from('Products').filter((f) => f.eq('Stock', 'lots')).list());
    expect(filter.option).toBe('filter value of Stock');
    expect(server.requests.length).toBe(before);
  });
});
