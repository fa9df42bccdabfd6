// Writes of an instance of a derived entity type (`BaseType`) to an entity set of its base type, named by
// `@odata.type` (v2: `__metadata.type`): checked and encoded by the derived type, against a node:http server.
import { ConfigError } from '@sluice/core';
import { edmxDocument, propertiesXML, type TestServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import type { ODataClient } from '../src/index.js';
import { metadataService } from './helpers.js';

const KEY = '<Key><PropertyRef Name="ID"/></Key>';
const schema = (version: '2.0' | '4.0'): string => {
  const date = version === '4.0' ? 'Edm.Date' : 'Edm.DateTime';
  const container = version === '4.0' ? '<EntityContainer Name="C">' : '<EntityContainer Name="C" m:IsDefaultEntityContainer="true">';
  return `<EntityType Name="Order">${KEY}${propertiesXML({ ID: 'Edm.Int32!', Customer: 'Edm.String' })}</EntityType>` +
    `<EntityType Name="SpecialOrder" BaseType="A.Order">${propertiesXML({ Priority: 'Edm.Int64', Due: date })}</EntityType>` +
    `<EntityType Name="Deeper" BaseType="S.SpecialOrder">${propertiesXML({ Level: 'Edm.Int16' })}</EntityType>` +
    `<EntityType Name="Other">${KEY}${propertiesXML({ ID: 'Edm.Int32!', Priority: 'Edm.String' })}</EntityType>` +
    `${container}<EntitySet Name="Orders" EntityType="S.Order"/><EntitySet Name="Others" EntityType="S.Other"/></EntityContainer>`;
};
const metadataXML = (version: '2.0' | '4.0'): string =>
  edmxDocument(version, 'S', schema(version)).replace('<Schema Namespace="S"', '<Schema Namespace="S" Alias="A"');

/** A service with the derived types: `$metadata`, and every write answered 201/200 with the body it got. */
const service = (version: '2.0' | '4.0'): Promise<{ server: TestServer; od: ODataClient }> =>
  metadataService(version, metadataXML(version), (req, res, body) => {
    const entity: unknown = JSON.parse(body);
    res.writeHead(req.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(version === '4.0' ? entity : { d: entity }));
  });

const sent = (server: TestServer, method: string): unknown[] =>
  server.requests.filter((r) => r.method === method).map((r) => JSON.parse(r.body) as unknown);

describe('v4: an entity of a derived type written to a set of its base type', () => {
  it('create() and update() accept the derived properties and encode them by their types', async () => {
    const { server, od } = await service('4.0');
    await od.from('Orders').create({ '@odata.type': '#S.SpecialOrder', ID: 1, Customer: 'c', Priority: 2n ** 60n, Due: new Date(Date.UTC(2026, 10, 26)) });
    await od.from('Orders').key(1).update({ '@odata.type': '#A.Deeper', Level: 3, Priority: 7n });
    await od.from('Orders').create({ '@odata.type': `${server.origin}/svc/$metadata#S.Deeper`, ID: 2, Level: 4 });
    expect(sent(server, 'POST')).toEqual([
      { '@odata.type': '#S.SpecialOrder', ID: 1, Customer: 'c', Priority: '1152921504606846976', Due: '2026-11-26' },
      { '@odata.type': `${server.origin}/svc/$metadata#S.Deeper`, ID: 2, Level: 4 },
    ]);
    expect(sent(server, 'PATCH')).toEqual([{ '@odata.type': '#A.Deeper', Level: 3, Priority: '7' }]);
  });

  it('a derived property of the wrong type, an unrelated or undeclared type, is a ConfigError and nothing is sent', async () => {
    const { server, od } = await service('4.0');
    const orders = od.from('Orders');
    await expect(orders.create({ '@odata.type': '#S.Deeper', ID: 1, Level: 70000 })).rejects.toThrow(/entity.Level expects Edm.Int16/);
    await expect(orders.create({ '@odata.type': '#S.Other', ID: 1, Priority: 'high' }))
      .rejects.toThrow(/entity.@odata.type names S.Other, which does not derive from S.Order/);
    await expect(orders.key(1).update({ '@odata.type': '#S.Nope', Priority: 1 })).rejects.toThrow(/changes.@odata.type names S.Nope, which \$metadata does not declare/);
    await expect(od.from('Others').create({ '@odata.type': '#S.SpecialOrder', ID: 1 })).rejects.toThrow(/does not derive from S.Other/);
    await expect(orders.create({ '@odata.type': 5, ID: 1 })).rejects.toBeInstanceOf(ConfigError);
    await expect(orders.create({ ID: 1, Priority: 1 })).rejects.toThrow(/entity.Priority is not a property of S.Order/);
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});

describe('v2: the derived type goes as __metadata.type', () => {
  it('create() names it from @odata.type (as reads give it) or __metadata.type', async () => {
    const { server, od } = await service('2.0');
    await od.from('Orders').create({ '@odata.type': '#S.SpecialOrder', ID: 1, Priority: 5n, Due: new Date(1777629600000) });
    await od.from('Orders').create({ __metadata: { type: 'A.Deeper', uri: 'x' }, ID: 2, Level: 1 });
    await od.from('Orders').create({ __metadata: { type: 'S.Order' }, ID: 3 });
    expect(sent(server, 'POST')).toEqual([
      { __metadata: { type: 'S.SpecialOrder' }, ID: 1, Priority: '5', Due: '/Date(1777629600000)/' },
      { __metadata: { type: 'S.Deeper' }, ID: 2, Level: 1 },
      { ID: 3 },
    ]);
    await expect(od.from('Orders').create({ __metadata: { type: 'S.Other' }, ID: 4 })).rejects.toThrow(/entity.__metadata.type names S.Other, which does not derive from S.Order/);
  });
});
