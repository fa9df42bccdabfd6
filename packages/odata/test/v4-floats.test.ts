// v4 Edm.Double and Edm.Single as the table of EDM types says (a number): the OData JSON format sends the special
// values as the strings "INF", "-INF" and "NaN", and a service may send a number as a string (IEEE754Compatible).
// With the service's model (loaded or given) they read as numbers, in complex values, collections and expanded
// entities too, and so do function results (v2 too); without it nothing tells them from strings. Against node:http
// servers answering as a v4 (and a v2) service.
import { describe, expect, it } from 'vitest';
import { createODataClient, parseEdmx, RecordDecodeError, toServiceModel } from '../src/index.js';
import { collect, json, serve } from './helpers.js';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <ComplexType Name="Range"><Property Name="Low" Type="Edm.Double"/><Property Name="High" Type="Edm.Single"/></ComplexType>
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Value" Type="Edm.Double"/>
      <Property Name="Ratio" Type="Edm.Single"/><Property Name="Code" Type="Edm.String"/>
      <Property Name="Bounds" Type="S.Range"/><Property Name="Samples" Type="Collection(Edm.Double)"/>
      <Property Name="Taken" Type="Edm.DateTimeOffset"/>
      <NavigationProperty Name="Sensor" Type="S.Sensor"/>
    </EntityType>
    <EntityType Name="Sensor"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Gain" Type="Edm.Double"/>
    </EntityType>
    <EntityType Name="Label"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Text" Type="Edm.String"/>
    </EntityType>
    <Function Name="Peak"><ReturnType Type="Edm.Double"/></Function>
    <Function Name="Series"><ReturnType Type="Collection(Edm.Single)"/></Function>
    <EntityContainer Name="C"><EntitySet Name="Readings" EntityType="S.Reading"/><EntitySet Name="Labels" EntityType="S.Label"/>
      <FunctionImport Name="Peak" Function="S.Peak"/><FunctionImport Name="Series" Function="S.Series"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const EDMX_V2_FUNCTIONS = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0"><Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
    <EntityContainer Name="C" m:IsDefaultEntityContainer="true">
      <FunctionImport Name="Peak" ReturnType="Edm.Double" m:HttpMethod="GET"/>
      <FunctionImport Name="Series" ReturnType="Collection(Edm.Double)" m:HttpMethod="GET"/>
    </EntityContainer>
  </Schema></edmx:DataServices>
</edmx:Edmx>`;

const ROWS = [
  { ID: 1, Value: 'INF', Ratio: '-INF', Code: 'NaN', Bounds: { Low: '-INF', High: 'NaN' }, Samples: ['INF', 1.5, '-INF', 'NaN'], Taken: '2024-01-02T03:04:05Z', Sensor: { ID: 7, Gain: 'NaN' } },
  { ID: 2, Value: 'NaN', Ratio: 0.25, Code: 'INF', Bounds: null, Samples: [], Taken: null, Sensor: null },
  // IEEE754Compatible: a number as a string.
  { ID: 3, Value: '1.5E+2', Ratio: '-0.5', Code: 'x', Bounds: { Low: 1, High: '2' }, Samples: ['3'], Taken: null },
];
const DECODED = [
  { ID: 1, Value: Infinity, Ratio: -Infinity, Code: 'NaN', Bounds: { Low: -Infinity, High: NaN }, Samples: [Infinity, 1.5, -Infinity, NaN], Taken: '2024-01-02T03:04:05Z', Sensor: { ID: 7, Gain: NaN } },
  { ID: 2, Value: NaN, Ratio: 0.25, Code: 'INF', Bounds: null, Samples: [], Taken: null, Sensor: null },
  { ID: 3, Value: 150, Ratio: -0.5, Code: 'x', Bounds: { Low: 1, High: 2 }, Samples: [3], Taken: null },
];
const LABELS = [{ ID: 1, Text: 'NaN' }];

async function service(rows: unknown[] = ROWS) {
  const seen: string[] = [];
  const v4 = { 'odata-version': '4.0' };
  const server = await serve({
    '/svc/$metadata': (res) => { seen.push('$metadata'); res.writeHead(200, { 'content-type': 'application/xml', ...v4 }); res.end(EDMX); },
    '/svc/Readings': (res) => json(res, { value: rows }, v4),
    '/svc/Readings(1)': (res) => json(res, { '@odata.context': '$metadata#Readings/$entity', ...(rows[0] as object) }, v4),
    '/svc/Labels': (res) => json(res, { value: LABELS }, v4),
    '/svc/Peak()': (res) => json(res, { '@odata.context': '$metadata#Edm.Double', value: 'INF' }, v4),
    '/svc/Series()': (res) => json(res, { '@odata.context': '$metadata#Collection(Edm.Single)', value: ['NaN', 1.5, '-INF', '2.5E+1'] }, v4),
  });
  return { server, seen };
}

describe('v4 Edm.Double and Edm.Single: "INF", "-INF", "NaN" and numbers sent as strings read as numbers', () => {
  it('with $metadata loaded: list(), stream(), streamBatches() and get(); in complex values, collections and expanded entities; Edm.String untouched', async () => {
    const { server } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true });
    expect(await od.from('Readings').list()).toEqual(DECODED);
    expect((await collect(od.from('Readings').stream())).map((i) => i.value)).toEqual(DECODED);
    expect((await collect(od.from('Readings').streamBatches())).flatMap((i) => i.value ?? [])).toEqual(DECODED);
    expect(await od.from('Readings').key(1).get()).toEqual(DECODED[0]);
    // A type without Doubles is read as parsed.
    expect(await od.from('Labels').list()).toEqual(LABELS);
    await od.close();
  });

  it('with the model given ahead (what sluice generate --runtime writes): the same, and no $metadata request', async () => {
    const { server, seen } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', metadata: toServiceModel(parseEdmx(EDMX)) });
    expect(await od.from('Readings').list()).toEqual(DECODED);
    expect(seen).toEqual([]);
    await od.close();
  });

  it('with dates: \'Date\' too: instants are Dates and Doubles numbers', async () => {
    const { server } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', dates: 'Date' });
    const [first] = await od.from<Record<string, unknown>>('Readings').list();
    expect(first).toMatchObject({ Value: Infinity, Taken: new Date('2024-01-02T03:04:05Z'), Sensor: { Gain: NaN } });
    await od.close();
  });

  it('a Double string that is no number fails that record with a RecordDecodeError naming the property; the others arrive', async () => {
    const { server } = await service([{ ID: 9, Value: 'Infinity' }, ROWS[1]]);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true });
    const items = await collect(od.from<Record<string, unknown>>('Readings').stream());
    expect(items[0]!.error).toBeInstanceOf(RecordDecodeError);
    expect(items[0]!.error!.message).toContain('Edm.Double property Value: "Infinity" is not a number');
    expect(items[1]!.value).toEqual(DECODED[1]);
    await od.close();
  });

  it('function results of return type Edm.Double or a collection of Edm.Single, v4 and v2', async () => {
    const { server } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true });
    expect(await od.function('Peak').execute()).toBe(Infinity);
    expect(await od.function('Series').execute()).toEqual([NaN, 1.5, -Infinity, 25]);
    await od.close();
    const v2 = { dataserviceversion: '2.0' };
    const v2Server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', ...v2 }); res.end(EDMX_V2_FUNCTIONS); },
      '/svc/Peak': (res) => json(res, { d: { Peak: '-INF' } }, v2),
      '/svc/Series': (res) => json(res, { d: { results: ['1.5E+2', 'NaN'] } }, v2),
    });
    const od2 = createODataClient({ serviceURL: `${v2Server.origin}/svc/`, version: '2.0', loadMetadata: true });
    expect(await od2.function('Peak').execute()).toBe(-Infinity);
    expect(await od2.function('Series').execute()).toEqual([150, NaN]);
    await od2.close();
  });

  it('without $metadata nothing says a string is a Double: values arrive as the service sent them', async () => {
    const { server, seen } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0' });
    expect(await od.from('Readings').list()).toEqual(ROWS);
    expect(seen).toEqual([]);
    await od.close();
  });
});
