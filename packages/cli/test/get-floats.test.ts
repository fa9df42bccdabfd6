// `sluice get` with the service's model loaded (it reads $metadata to type the key): Doubles the client decodes from
// "INF", "-INF", "NaN" are printed as OData JSON spells them, not as the null JSON.stringify would write.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="High" Type="Edm.Double"/>
      <Property Name="Low" Type="Edm.Double"/><Property Name="Mean" Type="Edm.Single"/><Property Name="Note" Type="Edm.String"/>
    </EntityType>
    <EntityContainer Name="C"><EntitySet Name="Readings" EntityType="S.Reading"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

let cli: SluiceCLI;
let srv: TestServer;
beforeAll(async () => {
  cli = await sluiceCLI();
  srv = await startServer((req, res) => {
    const v4 = { 'odata-version': '4.0' };
    if ((req.url ?? '').endsWith('$metadata')) return void res.writeHead(200, { 'content-type': 'application/xml', ...v4 }).end(EDMX);
    res.writeHead(200, { 'content-type': 'application/json', ...v4 });
    res.end(JSON.stringify({ '@odata.context': '$metadata#Readings/$entity', ID: 1, High: 'INF', Low: '-INF', Mean: 'NaN', Note: 'NaN' }));
  });
}, 120_000);
afterAll(() => srv.close());

describe('sluice get: Doubles that JSON has no number for', () => {
  it('prints Infinity, -Infinity and NaN as "INF", "-INF", "NaN" (not null)', async () => {
    const r = await cli.run(['get', `${srv.origin}/svc/`, 'Readings', '1']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ID: 1, High: 'INF', Low: '-INF', Mean: 'NaN', Note: 'NaN' });
  });
});
