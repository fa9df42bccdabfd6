// v4 Edm.Double and Edm.Single as the table of EDM types says (a number): the OData JSON format sends the special
// values as the strings "INF", "-INF" and "NaN", and a service may send a number as a string (IEEE754Compatible).
// With the service's model (loaded or given) they read as numbers, in complex values, collections and expanded
// entities too; without it nothing tells them from strings. Against node:http servers answering as a v4 service.
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
    <EntityContainer Name="C"><EntitySet Name="Readings" EntityType="S.Reading"/><EntitySet Name="Labels" EntityType="S.Label"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

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

  it('without $metadata nothing says a string is a Double: values arrive as the service sent them', async () => {
    const { server, seen } = await service();
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0' });
    expect(await od.from('Readings').list()).toEqual(ROWS);
    expect(seen).toEqual([]);
    await od.close();
  });
});
