import { describe, expect, it } from 'vitest';
import { createODataClient } from '../src/index.js';
import { decodeV2Date } from '../src/v2/values.js';
import { json, serve } from './helpers.js';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0">
    <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Event">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Note" Type="Edm.String"/>
        <Property Name="At" Type="Edm.DateTime"/>
        <Property Name="Local" Type="Edm.DateTimeOffset"/>
        <NavigationProperty Name="Next" Relationship="S.EventNext" FromRole="A" ToRole="B"/>
      </EntityType>
      <Association Name="EventNext"><End Role="A" Type="S.Event" Multiplicity="1"/><End Role="B" Type="S.Event" Multiplicity="0..1"/></Association>
      <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Events" EntityType="S.Event"/>
        <AssociationSet Name="EventNextSet" Association="S.EventNext"><End Role="A" EntitySet="Events"/><End Role="B" EntitySet="Events"/></AssociationSet>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

const row = {
  ID: 1, Note: '/Date(0)/', At: '/Date(1577840401000)/', Local: '/Date(1577840401000+0060)/',
  Next: { ID: 2, Note: '/Date(5)/', At: '/Date(0)/', Local: '/Date(0-0120)/' },
};

describe('v2 /Date(...)/ values', () => {
  it('decodes by property type when $metadata is known: Edm.String is left alone, offsets are kept', async () => {
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX); },
      '/svc/Events?$expand=Next': (res) => json(res, { d: { results: [row] } }, { dataserviceversion: '2.0' }),
      '/svc/Events(1)': (res) => json(res, { d: row }, { dataserviceversion: '2.0' }),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    const [event] = await od.from<Record<string, unknown>>('Events').expand('Next').list();
    expect(event!['Note']).toBe('/Date(0)/');
    expect(event!['At']).toEqual(new Date('2020-01-01T01:00:01.000Z'));
    // The instant is UTC; the offset (minutes, [MS-ODATA]) says how it was written locally.
    expect(event!['Local']).toBe('2020-01-01T02:00:01.000+01:00');
    expect(event!['Next']).toEqual({ ID: 2, Note: '/Date(5)/', At: new Date(0), Local: '1969-12-31T22:00:00.000-02:00' });
    const one = await od.from<Record<string, unknown>>('Events').key(1).get();
    expect(one['Note']).toBe('/Date(0)/');
    expect(one['Local']).toBe('2020-01-01T02:00:01.000+01:00');
    await od.close();
  });

  it('without $metadata decodes every /Date()/ string, still keeping offsets', async () => {
    const server = await serve({ '/svc/Events': (res) => json(res, { d: { results: [row] } }) });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0' });
    const [event] = await od.from<Record<string, unknown>>('Events').list();
    expect(event!['Note']).toEqual(new Date(0));
    expect(event!['Local']).toBe('2020-01-01T02:00:01.000+01:00');
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/Events']);
    await od.close();
  });

  it('reads offsets in minutes, or hhmm where only that is a whole quarter hour', () => {
    expect(decodeV2Date('/Date(0+0000)/')).toBe('1970-01-01T00:00:00.000+00:00');
    expect(decodeV2Date('/Date(0+0330)/')).toBe('1970-01-01T05:30:00.000+05:30');
    expect(decodeV2Date('/Date(0+0100)/')).toBe('1970-01-01T01:00:00.000+01:00');
    expect(decodeV2Date('/Date(-86400000)/')).toEqual(new Date('1969-12-31T00:00:00Z'));
    expect(decodeV2Date('/Date(abc)/')).toBe('/Date(abc)/');
  });
});
