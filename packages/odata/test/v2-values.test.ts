// v2 values whose JSON form differs from v4's, read as the one table of EDM types says (EDM_PRIMITIVES):
// Doubles and Singles that SAP gateways write as strings ("1.5E+2", "INF") read as numbers, Binary's base64
// as v4's base64url. Against node:http servers answering as a v2 (and a v4) service would.
import { describe, expect, it } from 'vitest';
import { createODataClient, edmPrimitive, RecordDecodeError } from '../src/index.js';
import { decodeV2Binary, decodeV2Float } from '../src/v2/values.js';
import { collect, json, serve } from './helpers.js';

const EDMX_V2 = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
  <edmx:DataServices m:DataServiceVersion="2.0">
    <Schema Namespace="S" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Reading">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Value" Type="Edm.Double"/>
        <Property Name="Ratio" Type="Edm.Single"/>
        <Property Name="Blob" Type="Edm.Binary"/>
        <Property Name="Code" Type="Edm.String"/>
      </EntityType>
      <EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="Readings" EntityType="S.Reading"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

const EDMX_V4 = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Value" Type="Edm.Double"/>
      <Property Name="Ratio" Type="Edm.Single"/><Property Name="Blob" Type="Edm.Binary"/><Property Name="Code" Type="Edm.String"/>
    </EntityType>
    <EntityContainer Name="C"><EntitySet Name="Readings" EntityType="S.Reading"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

// The bytes fb ff 3e: base64 `+/8+`, base64url `-_8-`; the bytes 00 ff: `AP8=` in both (padding kept).
const V2_ROWS = [
  { ID: 1, Value: '1.5E+2', Ratio: '0.25', Blob: '+/8+', Code: '1.5E+2' },
  { ID: 2, Value: 'INF', Ratio: '-INF', Blob: 'AP8=', Code: 'INF' },
  { ID: 3, Value: 'NaN', Ratio: -2.5, Blob: null, Code: 'x' },
  { ID: 4, Value: '-0.0000000000000000E+00', Ratio: '.5', Blob: '', Code: '' },
];
const V4_ROWS = [
  { ID: 1, Value: 150, Ratio: 0.25, Blob: '-_8-', Code: '1.5E+2' },
];

async function v2Server(rows: unknown[]) {
  return serve({
    '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX_V2); },
    '/svc/Readings': (res) => json(res, { d: { results: rows } }, { dataserviceversion: '2.0' }),
    '/svc/Readings(1)': (res) => json(res, { d: rows[0] }, { dataserviceversion: '2.0' }),
  });
}

describe('v2 Edm.Double, Edm.Single and Edm.Binary read as the EDM table says', () => {
  it('with $metadata: Doubles and Singles written as strings are numbers (exponent, INF, -INF, NaN), Binary is base64url; Edm.String untouched', async () => {
    expect(edmPrimitive('Edm.Double')?.ts.default).toBe('number');
    const server = await v2Server(V2_ROWS);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    const rows = await od.from<Record<string, unknown>>('Readings').list();
    expect(rows).toEqual([
      { ID: 1, Value: 150, Ratio: 0.25, Blob: '-_8-', Code: '1.5E+2' },
      { ID: 2, Value: Infinity, Ratio: -Infinity, Blob: 'AP8=', Code: 'INF' },
      { ID: 3, Value: NaN, Ratio: -2.5, Blob: null, Code: 'x' },
      { ID: 4, Value: -0, Ratio: 0.5, Blob: '', Code: '' },
    ]);
    expect(Buffer.from(rows[0]!['Blob'] as string, 'base64url')).toEqual(Buffer.from([0xfb, 0xff, 0x3e]));
    expect(await od.from<Record<string, unknown>>('Readings').key(1).get()).toMatchObject({ Value: 150, Blob: '-_8-' });
    await od.close();
  });

  it('v2 and v4 give the same values for the same data (v4 base64url kept as sent)', async () => {
    const v4 = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }); res.end(EDMX_V4); },
      '/svc/Readings': (res) => json(res, { value: V4_ROWS }, { 'odata-version': '4.0' }),
    });
    const v2 = await v2Server(V2_ROWS.slice(0, 1));
    const od4 = createODataClient({ serviceURL: `${v4.origin}/svc/`, version: '4.0', loadMetadata: true });
    const od2 = createODataClient({ serviceURL: `${v2.origin}/svc/`, version: '2.0', loadMetadata: true });
    const [r4] = await od4.from('Readings').list();
    const [r2] = await od2.from('Readings').list();
    expect(r2).toEqual(r4);
    await Promise.all([od4.close(), od2.close()]);
  });

  it('a Double that is no number fails that record with a RecordDecodeError naming the property; the others arrive', async () => {
    const server = await v2Server([{ ID: 1, Value: '12,5', Ratio: null, Blob: null, Code: 'a' }, V2_ROWS[0]]);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    const items = await collect(od.from<Record<string, unknown>>('Readings').stream());
    expect(items).toHaveLength(2);
    expect(items[0]!.error).toBeInstanceOf(RecordDecodeError);
    expect(items[0]!.error!.message).toContain('Edm.Double property Value: "12,5" is not a number');
    expect((items[0]!.error as RecordDecodeError).excerpt).toContain('"12,5"');
    expect(items[1]!.value).toMatchObject({ ID: 1, Value: 150 });
    await od.close();
  });

  it('without $metadata nothing says a string is a Double: values stay as the service wrote them', async () => {
    const server = await v2Server(V2_ROWS.slice(0, 1));
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0' });
    expect(await od.from('Readings').list()).toEqual([V2_ROWS[0]]);
    await od.close();
  });

  it('in a complex property too (by $metadata), its __metadata dropped as an entity\'s is', async () => {
    const edmx = EDMX_V2.replace('<EntityType Name="Reading">', '<ComplexType Name="Range"><Property Name="Low" Type="Edm.Double"/><Property Name="High" Type="Edm.Single"/></ComplexType><EntityType Name="Reading">')
      .replace('<Property Name="Code" Type="Edm.String"/>', '<Property Name="Code" Type="Edm.String"/><Property Name="Bounds" Type="S.Range" Nullable="false"/>');
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(edmx); },
      '/svc/Readings': (res) => json(res, { d: { results: [{ ID: 1, Value: '1', Bounds: { __metadata: { type: 'S.Range' }, Low: '-INF', High: 'NaN' } }] } }, { dataserviceversion: '2.0' }),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    expect(await od.from('Readings').list()).toEqual([{ ID: 1, Value: 1, Bounds: { Low: -Infinity, High: NaN } }]);
    await od.close();
  });

  it('decodeV2Float and decodeV2Binary', () => {
    expect([decodeV2Float('1E3', 'Edm.Double', 'p'), decodeV2Float('-1.25e-1', 'Edm.Single', 'p'), decodeV2Float('+7', 'Edm.Double', 'p')]).toEqual([1000, -0.125, 7]);
    for (const bad of ['', ' 1', '1e', 'Infinity', '0x10', 'constructor', '1.2.3']) expect(() => decodeV2Float(bad, 'Edm.Double', 'P')).toThrow(/Edm\.Double property P/);
    expect(decodeV2Binary('ab+/cd==')).toBe('ab-_cd==');
    expect(Buffer.from(decodeV2Binary(Buffer.from('sluice?>>').toString('base64')), 'base64url').toString()).toBe('sluice?>>');
  });
});
