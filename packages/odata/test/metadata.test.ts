import { startODataServer, type ODataTestServer } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MetadataParseError, parseCsdlJson, parseEdmx, parseErrorBody } from '../src/index.js';

let srv: ODataTestServer;
beforeAll(async () => {
  srv = await startODataServer({ products: 10 });
});
afterAll(async () => {
  await srv.close();
});

const fetchText = async (url: string, accept: string): Promise<string> => (await fetch(url, { headers: { accept } })).text();

describe('$metadata parsing', () => {
  it('reads v4 EDMX XML and CSDL JSON into the same model', async () => {
    const fromXml = parseEdmx(await fetchText(`${srv.v4}$metadata`, 'application/xml'));
    const fromJson = parseCsdlJson(JSON.parse(await fetchText(`${srv.v4}$metadata?$format=json`, 'application/json')));
    for (const md of [fromXml, fromJson]) {
      expect(md.version).toBe('4.0');
      expect([...md.entitySets.keys()].sort()).toEqual(['Categories', 'OrderItems', 'Products']);
      const product = md.entitySets.get('Products')!.entityType!;
      expect(product.qualifiedName).toBe('Demo.Product');
      expect(product.properties.get('Guid')?.type).toBe('Edm.Guid');
      expect(product.properties.get('Name')?.type).toBe('Edm.String');
      expect(product.navigation.get('Category')).toMatchObject({ type: 'Demo.Category', collection: false });
    }
    expect(fromXml.entitySets.get('Products')!.entityType!.properties.get('Price')).toMatchObject({ precision: 12, scale: 2 });
  });

  it('reads v2 EDMX with DataServiceVersion and association-based navigation', async () => {
    const md = parseEdmx(await fetchText(`${srv.v2}$metadata`, 'application/xml'));
    expect(md.version).toBe('2.0');
    expect(md.entitySets.get('Products')!.entityType!.properties.get('ReleaseDate')?.type).toBe('Edm.DateTime');
    expect(md.entitySets.get('Products')!.entityType!.navigation.get('Category')).toMatchObject({ type: 'Demo.Category', collection: false });
    expect(md.entitySets.get('Categories')!.entityType!.navigation.get('Products')).toMatchObject({ type: 'Demo.Product', collection: true });
  });

  it('handles aliases, inheritance, comments, CDATA and entities', () => {
    const md = parseEdmx(`<?xml version="1.0"?><!-- c --><edmx:Edmx Version="4.0" xmlns:edmx="x"><edmx:DataServices>
      <Schema Namespace="Very.Long.NS" Alias="NS"><EntityType Name="Base"><Key><PropertyRef Name="Id"/></Key><Property Name="Id" Type="Edm.Guid" Nullable="false"/></EntityType>
      <EntityType Name="Derived" BaseType="NS.Base"><Property Name="Note" Type="Edm.String"><![CDATA[ <ignored> ]]></Property><Property Name="A&amp;B" Type="Edm.Int32"/></EntityType>
      <EntityContainer Name="C"><EntitySet Name="Things" EntityType="NS.Derived"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`);
    const type = md.entitySets.get('Things')!.entityType!;
    expect(type.qualifiedName).toBe('Very.Long.NS.Derived');
    expect(type.key).toEqual(['Id']);
    expect(type.properties.get('Id')?.type).toBe('Edm.Guid');
    expect(type.properties.has('A&B')).toBe(true);
  });

  it('rejects documents that are not EDMX with a MetadataParseError', () => {
    expect(() => parseEdmx('<html><body/></html>')).toThrow(MetadataParseError);
    expect(() => parseEdmx('<edmx:Edmx xmlns:edmx="x"><a></b></edmx:Edmx>')).toThrow(MetadataParseError);
  });
});

describe('OData error bodies', () => {
  it('reads v4 JSON, v2 JSON and SAP XML errors', () => {
    expect(parseErrorBody('{"error":{"code":"E1","message":"bad","target":"Name","details":[{"code":"D","message":"m","target":"t"}]}}'))
      .toEqual({ code: 'E1', message: 'bad', target: 'Name', details: [{ code: 'D', message: 'm', target: 't' }] });
    expect(parseErrorBody('{"error":{"code":"SY/530","message":{"lang":"en","value":"Resource not found"}}}'))
      .toMatchObject({ code: 'SY/530', message: 'Resource not found' });
    expect(parseErrorBody('<?xml version="1.0"?><error xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><code>/IWBEP/CM_MGW_RT/020</code><message xml:lang="en">Property &apos;X&apos; invalid</message><innererror><errordetails><errordetail><code>D1</code><message>first</message><target>X</target></errordetail></errordetails></innererror></error>'))
      .toEqual({ code: '/IWBEP/CM_MGW_RT/020', message: "Property 'X' invalid", target: undefined, details: [{ code: 'D1', message: 'first', target: 'X' }] });
    expect(parseErrorBody('Service Unavailable')).toBeUndefined();
    expect(parseErrorBody('{"message":"not odata"}')).toBeUndefined();
  });
});
