import { startServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, MetadataParseError, parseCsdlJson, parseEdmx } from '../src/index.js';
import { annotatedV4Edmx, sapV2Edmx } from './fixtures/large-edmx.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/** Serves `body` as $metadata in chunks of `chunk` bytes, so a parse sees the document piece by piece. */
async function serveMetadata(body: string | Buffer, chunk = 64 * 1024, contentType = 'application/xml') {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const srv = await startServer(async (_req, res) => {
    res.writeHead(200, { 'content-type': contentType });
    for (let i = 0; i < bytes.length; i += chunk) {
      if (!res.write(bytes.subarray(i, i + chunk))) await new Promise((r) => res.once('drain', r));
    }
    res.end();
  });
  const od = createODataClient({ serviceURL: `${srv.origin}/svc/`, http: { retry: false } });
  closers.push(() => srv.close(), () => od.close());
  return od;
}

describe('$metadata XML parser', () => {
  it('reads a multi-MB SAP gateway document streamed in small chunks, split inside multi-byte characters', async () => {
    const xml = sapV2Edmx(800).replace('Field &quot;0&quot;', 'Feld \u00e4\u20ac\u{1F600}');
    expect(xml.length).toBeGreaterThan(4 * 1024 * 1024);
    const od = await serveMetadata(xml, 4093);
    const md = await od.metadata();
    expect(md.version).toBe('2.0');
    expect(md.entitySets.size).toBe(800);
    const t799 = md.entitySets.get('Set799')!;
    expect(t799.entityType!.properties.size).toBe(40);
    expect(t799.entityType!.properties.get('Field7')).toMatchObject({ type: 'Edm.Decimal', precision: 15, scale: 3 });
    expect(t799.entityType!.navigation.get('Next')).toMatchObject({ type: 'ZBIG_SRV.Type0', collection: true });
    expect(t799.navigationBindings.get('Next')).toBe('Set0');
    expect(t799.concurrency).toEqual(['ChangedAt']);
    expect(md.operationImports.get('Release')).toMatchObject({ kind: 'function', httpMethod: 'POST', entitySet: 'Set0', parameters: [{ name: 'Id', type: 'Edm.String' }] });
    expect(od.version).toBe('2.0');
  });

  it('reads a heavily annotated v4 document: namespaces, aliases, external annotations, actions and functions', () => {
    const md = parseEdmx(annotatedV4Edmx(300));
    expect(md.entitySets.size).toBe(300);
    const s0 = md.entitySets.get('S0')!;
    expect(s0.concurrency).toEqual(['P0']);
    expect(md.entitySets.get('S1')!.concurrency).toEqual([]);
    expect(s0.navigationBindings.get('Next')).toBe('S1');
    expect(s0.entityType!.navigation.get('Next')).toMatchObject({ type: 'Big.Service.E1', partner: 'Prev' });
    expect(s0.entityType!.navigation.get('Items')).toMatchObject({ collection: true, containsTarget: true });
    const [approve] = md.operations.get('Big.Service.Approve')!;
    expect(approve).toMatchObject({ kind: 'action', bound: true, bindingType: 'Big.Service.E0', bindingCollection: false, returnType: 'Big.Service.E0' });
    expect(approve!.parameters).toEqual([{ name: 'Comment', type: 'Edm.String', nullable: true }]);
    expect(md.operations.get('Big.Top')![0]).toMatchObject({ kind: 'function', bound: false, composable: true, returnType: 'Collection(Big.Service.E0)' });
    expect(md.operationImports.get('Top')).toMatchObject({ kind: 'function', operation: 'Big.Service.Top', entitySet: 'S0' });
  });

  it('keeps inline OptimisticConcurrency on an entity set and reads CDATA, comments and character references', () => {
    const md = parseEdmx(`<?xml version="1.0"?>
      <!DOCTYPE edmx>
      <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><!-- <EntityType Name="Commented"/> -->
      <edmx:DataServices><Schema Namespace="N" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EntityType Name="T"><Key><PropertyRef Name="K&#x41;"/></Key><Property Name="KA" Type="Edm.Int64" Nullable="false"/><Property Name="V" Type="Edm.String"/></EntityType>
        <?processing instruction?>
        <EntityContainer Name="C"><EntitySet Name="Ts" EntityType="N.T">
          <Annotation Term="Org.OData.Core.V1.OptimisticConcurrency"><Collection><PropertyPath><![CDATA[V]]></PropertyPath></Collection></Annotation>
        </EntitySet><ActionImport Name="Go" Action="N.Go"/></EntityContainer>
      </Schema></edmx:DataServices></edmx:Edmx>`);
    expect(md.entityTypes.has('N.Commented')).toBe(false);
    expect(md.entitySets.get('Ts')!.entityType!.key).toEqual(['KA']);
    expect(md.entitySets.get('Ts')!.concurrency).toEqual(['V']);
    expect(md.operationImports.get('Go')).toMatchObject({ kind: 'action', operation: 'N.Go' });
  });

  it('reads actions, functions, bindings and concurrency from CSDL JSON', () => {
    const md = parseCsdlJson({
      $Version: '4.01', $EntityContainer: 'N.C',
      N: {
        $Alias: 'A',
        T: { $Kind: 'EntityType', $Key: ['ID'], ID: { $Type: 'Edm.Int32' }, Next: { $Kind: 'NavigationProperty', $Type: 'N.T', $Partner: 'Prev' } },
        Act: [{ $Kind: 'Action', $IsBound: true, $Parameter: [{ $Name: 'in', $Type: 'N.T', $Collection: true }, { $Name: 'X', $Type: 'Edm.Decimal' }] }],
        C: {
          $Kind: 'EntityContainer',
          Ts: { $Collection: true, $Type: 'N.T', $NavigationPropertyBinding: { Next: 'Ts' }, '@Org.OData.Core.V1.OptimisticConcurrency': [{ $PropertyPath: 'ID' }] },
          Fn: { $Function: 'N.Fn' },
        },
      },
    });
    expect(md.entitySets.get('Ts')).toMatchObject({ concurrency: ['ID'] });
    expect(md.entitySets.get('Ts')!.navigationBindings.get('Next')).toBe('Ts');
    expect(md.operations.get('A.Act')![0]).toMatchObject({ kind: 'action', bindingType: 'N.T', bindingCollection: true, parameters: [{ name: 'X', type: 'Edm.Decimal' }] });
    expect(md.operationImports.get('Fn')).toMatchObject({ kind: 'function', operation: 'N.Fn' });
  });
});

describe('$metadata served with white space before <?xml', () => {
  // Northwind's v4 service (services.odata.org/V4/Northwind/Northwind.svc/$metadata) starts its body with a line break.
  const doc = '<?xml version="1.0" encoding="utf-8"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">'
    + '<edmx:DataServices><Schema Namespace="NorthwindModel" xmlns="http://docs.oasis-open.org/odata/ns/edm"><EntityType Name="Category">'
    + '<Key><PropertyRef Name="CategoryID"/></Key><Property Name="CategoryID" Type="Edm.Int32" Nullable="false"/></EntityType>'
    + '<EntityContainer Name="C"><EntitySet Name="Categories" EntityType="NorthwindModel.Category"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>';

  it('is read from a string and from a response split inside the white space; lines stay those of the document', async () => {
    expect(parseEdmx(`\r\n  ${doc}`).entitySets.get('Categories')?.entityType?.key).toEqual(['CategoryID']);
    expect(parseEdmx(`\uFEFF\n${doc}`).version).toBe('4.0');
    const od = await serveMetadata(`\n\n   \n${doc}`, 2);
    expect((await od.metadata()).entitySets.has('Categories')).toBe(true);
    const error = (() => { try { return parseEdmx('\n\n<?xml version="1.0"?>\n<a>\n</b>'); } catch (e) { return e; } })();
    expect((error as MetadataParseError).line).toBe(5);
  });
});

describe('$metadata parse errors', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['not XML', 'Service Unavailable', /line 1/],
    ['an HTML login page', '<!DOCTYPE html>\n<html><body><form></form></body></html>', /not an EDMX document: the root element is <html>/],
    ['an invalid character reference', '<edmx:Edmx Version="4.0" xmlns:edmx="e">\n  <a>&#xD800;</a></edmx:Edmx>', /line 2/],
    ['a reference beyond Unicode', '<edmx:Edmx Version="4.0" xmlns:edmx="e">&#1114112;</edmx:Edmx>', /line 1/],
    ['mismatched tags', '<edmx:Edmx xmlns:edmx="e">\n<a>\n</b></edmx:Edmx>', /line 3/],
    ['a truncated document', '<edmx:Edmx xmlns:edmx="e"><edmx:DataServices>', /Cannot read/],
    ['an undeclared prefix', '<edmx:Edmx><x/></edmx:Edmx>', /prefix/],
    ['an external entity', '<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><x>&e;</x>', /Cannot read/],
  ];
  for (const [what, text, pattern] of cases) {
    it(`turns ${what} into a MetadataParseError naming the document and position`, () => {
      let error: unknown;
      try {
        parseEdmx(text, { document: 'the test document' });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MetadataParseError);
      expect((error as MetadataParseError).message).toMatch(/^Cannot read the test document/);
      expect((error as MetadataParseError).message).toMatch(pattern);
    });
  }

  it('reports a bad $metadata response with the redacted URL and the position', async () => {
    const od = await serveMetadata('<edmx:Edmx Version="4.0" xmlns:edmx="e">\n<edmx:DataServices>\n<Schema></edmx:DataServices>', 7);
    const error = await od.metadata().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MetadataParseError);
    expect(error).toMatchObject({ line: 3, document: expect.stringMatching(/^\$metadata at http:\/\/127\.0\.0\.1:\d+\/svc\/\$metadata$/) });
  });

  it('reports invalid UTF-8 and broken CSDL JSON as MetadataParseError', async () => {
    const bad = Buffer.concat([Buffer.from('<edmx:Edmx xmlns:edmx="e">'), Buffer.from([0xff, 0xfe]), Buffer.from('</edmx:Edmx>')]);
    expect(await (await serveMetadata(bad)).metadata().catch((e: unknown) => e)).toBeInstanceOf(MetadataParseError);
    expect(await (await serveMetadata('{"$Version": ', 5, 'application/json')).metadata().catch((e: unknown) => e)).toBeInstanceOf(MetadataParseError);
    expect(await (await serveMetadata('{"no": "version"}', 5, 'application/json')).metadata().catch((e: unknown) => e)).toBeInstanceOf(MetadataParseError);
  });
});
