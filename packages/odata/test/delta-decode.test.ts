// DeltaSync pages and operation results decode entities by their type as stream()/list() do when the model is
// known: v4 Doubles sent as "INF", "-INF", "NaN" become numbers, `dates: 'Date'` makes instants Dates, v2 values
// take the table of EDM types' form. Removals stay as the service sent them. Against node:http servers answering
// as a v4 and a v2 service.
import { describe, expect, it } from 'vitest';
import { createODataClient, DeltaSync, type DeltaPage, type DeltaStore } from '../src/index.js';
import { json, serve } from './helpers.js';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <ComplexType Name="Range"><Property Name="Low" Type="Edm.Double"/><Property Name="Until" Type="Edm.DateTimeOffset"/></ComplexType>
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Value" Type="Edm.Double"/>
      <Property Name="Ratio" Type="Edm.Single"/><Property Name="Code" Type="Edm.String"/>
      <Property Name="Taken" Type="Edm.DateTimeOffset"/>
      <NavigationProperty Name="Sensors" Type="Collection(S.Sensor)"/>
    </EntityType>
    <EntityType Name="Sensor"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Gain" Type="Edm.Double"/>
    </EntityType>
    <Function Name="Top" IsBound="true"><Parameter Name="in" Type="Collection(S.Reading)"/><ReturnType Type="Collection(S.Reading)"/></Function>
    <Action Name="Make"><ReturnType Type="S.Reading"/></Action>
    <Function Name="Span"><ReturnType Type="S.Range"/></Function>
    <Function Name="Spans"><ReturnType Type="Collection(S.Range)"/></Function>
    <EntityContainer Name="C">
      <EntitySet Name="Readings" EntityType="S.Reading"><NavigationPropertyBinding Path="Sensors" Target="Sensors"/></EntitySet>
      <EntitySet Name="Sensors" EntityType="S.Sensor"/>
      <ActionImport Name="Make" Action="S.Make" EntitySet="Readings"/>
      <FunctionImport Name="Span" Function="S.Span"/><FunctionImport Name="Spans" Function="S.Spans"/>
    </EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const V4 = { 'odata-version': '4.0' };
const TAKEN = '2024-01-02T03:04:05Z';
const REMOVED_BY_ID = { '@odata.context': '$metadata#Readings/$deletedEntity', id: 'Readings(5)', reason: 'deleted' };
const REMOVED_BY_KEY = { '@removed': { reason: 'changed' }, ID: 6 };

/** A full read in two pages, then a delta read with changed entities (one with a nested delta) and two removals. */
async function v4Service() {
  const seen: string[] = [];
  const server = await serve({
    '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', ...V4 }); res.end(EDMX); },
    '/svc/Readings': (res) => json(res, { value: [{ ID: 1, Value: 'INF', Ratio: '-INF', Code: 'NaN', Taken: TAKEN }], '@odata.nextLink': 'Readings?$skiptoken=1' }, V4),
    '/svc/Readings?$skiptoken=1': (res) => json(res, { value: [{ ID: 2, Value: 'NaN', Ratio: 0.5, Code: 'INF', Taken: null }], '@odata.deltaLink': 'Readings?$deltatoken=1' }, V4),
    '/svc/Readings?$deltatoken=1': (res, url) => {
      seen.push(url);
      json(res, {
        value: [
          { ID: 1, Value: '-INF', Ratio: '1.5E+2', Code: '-INF', Taken: TAKEN, 'Sensors@delta': [{ ID: 7, Gain: 'NaN' }, { '@removed': { reason: 'deleted' }, '@id': 'Sensors(8)' }] },
          REMOVED_BY_ID,
          REMOVED_BY_KEY,
        ],
        '@odata.deltaLink': 'Readings?$deltatoken=2',
      }, V4);
    },
    '/svc/Readings/S.Top()': (res) => json(res, { '@odata.context': '$metadata#Readings', value: [{ ID: 3, Value: 'NaN', Ratio: '-INF', Code: 'INF', Taken: TAKEN }] }, V4),
    '/svc/Span()': (res) => json(res, { '@odata.context': '$metadata#S.Range', Low: '-INF', Until: TAKEN }, V4),
    '/svc/Spans()': (res) => json(res, { '@odata.context': '$metadata#Collection(S.Range)', value: [{ Low: 'NaN', Until: null }, { Low: '2.5', Until: TAKEN }] }, V4),
    '/svc/Make': (res) => json(res, { '@odata.context': '$metadata#Readings/$entity', ID: 4, Value: '-INF', Ratio: 'INF', Code: 'NaN', Taken: TAKEN }, V4),
  });
  return { server, seen };
}

class MemoryStore implements DeltaStore {
  readonly links = new Map<string, string>();
  load(key: string): Promise<string | undefined> { return Promise.resolve(this.links.get(key)); }
  save(key: string, link: string): Promise<void> { this.links.set(key, link); return Promise.resolve(); }
  clear(key: string): Promise<void> { this.links.delete(key); return Promise.resolve(); }
}

async function pages<T>(sync: DeltaSync<T>): Promise<DeltaPage<T>[]> {
  const out: DeltaPage<T>[] = [];
  for await (const page of sync.pages()) out.push(page);
  return out;
}

describe('DeltaSync pages decode entities by their type when the model is known', () => {
  it('v4 with $metadata loaded: Doubles and Singles sent as "INF", "-INF", "NaN" or numeric strings are numbers in the full read and the delta read (nested deltas too); removals as sent', async () => {
    const { server, seen } = await v4Service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true });
    const store = new MemoryStore();
    const full = await pages(new DeltaSync(od, od.from('Readings'), { store }));
    expect(full.flatMap((p) => p.changes)).toEqual([
      { kind: 'entity', value: { ID: 1, Value: Infinity, Ratio: -Infinity, Code: 'NaN', Taken: TAKEN } },
      { kind: 'entity', value: { ID: 2, Value: NaN, Ratio: 0.5, Code: 'INF', Taken: null } },
    ]);
    const delta = await pages(new DeltaSync(od, od.from('Readings'), { store }));
    expect(seen).toEqual(['/svc/Readings?$deltatoken=1']);
    expect(delta.flatMap((p) => p.changes)).toEqual([
      {
        kind: 'entity',
        value: { ID: 1, Value: -Infinity, Ratio: 150, Code: '-INF', Taken: TAKEN },
        related: { Sensors: [{ kind: 'entity', value: { ID: 7, Gain: NaN } }, { kind: 'removed', id: 'Sensors(8)', key: undefined, reason: 'deleted' }] },
      },
      { kind: 'removed', id: 'Readings(5)', reason: 'deleted' },
      { kind: 'removed', id: 'Readings(6)', key: { ID: 6 }, reason: 'changed' },
    ]);
    await od.close();
  });

  it('v4 with dates: \'Date\': instants are Dates in delta pages as in stream()', async () => {
    const { server } = await v4Service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', dates: 'Date' });
    const store = new MemoryStore();
    const [first] = (await pages(new DeltaSync(od, od.from('Readings'), { store })))[0]!.changes;
    expect(first).toEqual({ kind: 'entity', value: { ID: 1, Value: Infinity, Ratio: -Infinity, Code: 'NaN', Taken: new Date(TAKEN) } });
    const [changed] = (await pages(new DeltaSync(od, od.from('Readings'), { store })))[0]!.changes;
    expect(changed).toMatchObject({ kind: 'entity', value: { Value: -Infinity, Taken: new Date(TAKEN) } });
    await od.close();
  });

  it('v4 operations returning entities or complex values of the model: a bound function\'s collection, an unbound action\'s entity, a complex value and a collection of them are decoded', async () => {
    const { server } = await v4Service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true });
    expect(await od.from('Readings').function('S.Top').execute()).toEqual([{ ID: 3, Value: NaN, Ratio: -Infinity, Code: 'INF', Taken: TAKEN }]);
    expect((await od.action('Make').execute()).value).toEqual({ ID: 4, Value: -Infinity, Ratio: Infinity, Code: 'NaN', Taken: TAKEN });
    expect(await od.function('Span').execute()).toEqual({ Low: -Infinity, Until: TAKEN });
    expect(await od.function('Spans').execute()).toEqual([{ Low: NaN, Until: null }, { Low: 2.5, Until: TAKEN }]);
    await od.close();
    const dated = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', dates: 'Date' });
    expect((await dated.action('Make').execute()).value).toMatchObject({ Value: -Infinity, Taken: new Date(TAKEN) });
    expect(await dated.function('Span').execute()).toEqual({ Low: -Infinity, Until: new Date(TAKEN) });
    await dated.close();
  });
});

const EDMX_V2 = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0"><Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Value" Type="Edm.Double"/>
      <Property Name="Note" Type="Edm.String"/><Property Name="At" Type="Edm.Time"/><Property Name="Taken" Type="Edm.DateTime"/>
    </EntityType>
    <ComplexType Name="Range"><Property Name="Low" Type="Edm.Double"/><Property Name="At" Type="Edm.Time"/></ComplexType>
    <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
      <EntitySet Name="Readings" EntityType="S.Reading"/>
      <FunctionImport Name="Span" ReturnType="S.Range" m:HttpMethod="GET"/>
      <FunctionImport Name="Latest" ReturnType="S.Reading" EntitySet="Readings" m:HttpMethod="GET"/>
      <FunctionImport Name="Recent" ReturnType="Collection(S.Reading)" EntitySet="Readings" m:HttpMethod="GET"/>
    </EntityContainer>
  </Schema></edmx:DataServices>
</edmx:Edmx>`;

const V2 = { dataserviceversion: '2.0' };
const V2_ROW = { __metadata: { type: 'S.Reading' }, ID: 1, Value: 'INF', Note: '/Date(0)/', At: 'PT13H45M', Taken: '/Date(1704164645000)/' };
const V2_DECODED = { ID: 1, Value: Infinity, Note: '/Date(0)/', At: '13:45:00', Taken: '2024-01-02T03:04:05Z' };

describe('v2 (SAP Gateway __delta): DeltaSync pages and function imports decode by the entity type', () => {
  it('delta pages as stream(): Doubles, Edm.Time, Edm.DateTime by the model, a String that looks like a date left alone; a removal as sent', async () => {
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', ...V2 }); res.end(EDMX_V2); },
      '/svc/Readings': (res) => json(res, { d: { results: [V2_ROW], __delta: 'Readings?!deltatoken=1' } }, V2),
      "/svc/Readings?!deltatoken=1": (res) => json(res, { d: { results: [{ ...V2_ROW, Value: 'NaN' }, { '@odata.context': '$metadata#Readings/$deletedEntity', id: 'Readings(2)' }], __delta: 'Readings?!deltatoken=2' } }, V2),
      '/svc/Latest': (res) => json(res, { d: V2_ROW }, V2),
      '/svc/Span': (res) => json(res, { d: { Span: { __metadata: { type: 'S.Range' }, Low: '-INF', At: 'PT1H' } } }, V2),
      '/svc/Recent': (res) => json(res, { d: { results: [{ ...V2_ROW, Value: '-INF' }] } }, V2),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    expect(await od.from('Readings').list()).toEqual([V2_DECODED]);
    const store = new MemoryStore();
    expect((await pages(new DeltaSync(od, od.from('Readings'), { store }))).flatMap((p) => p.changes)).toEqual([{ kind: 'entity', value: V2_DECODED }]);
    expect((await pages(new DeltaSync(od, od.from('Readings'), { store }))).flatMap((p) => p.changes)).toEqual([
      { kind: 'entity', value: { ...V2_DECODED, Value: NaN } },
      { kind: 'removed', id: 'Readings(2)', reason: undefined },
    ]);
    expect(await od.function('Latest').execute()).toEqual(V2_DECODED);
    expect(await od.function('Recent').execute()).toEqual([{ ...V2_DECODED, Value: -Infinity }]);
    expect(await od.function('Span').execute()).toEqual({ Low: -Infinity, At: '01:00:00' });
    await od.close();
  });
});
