// Every column kind into a real PostgreSQL by COPY, from a node:http OData v4 service whose two pages
// overlap (the second sends the first page's last key again, changed): text with tabs, newlines and
// backslashes, NaN, bytea, jsonb, NULLs; the overlapping key is replaced, not duplicated or refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { syncEntitySet } from '../src/index.js';
import { startPostgresDatabase, type PostgresDatabase } from './postgres.js';

/** Property name, then its type and facets as `$metadata` declares them. */
const PROPERTIES: [string, string][] = [
  ['ID', 'Edm.Int32" Nullable="false'], ['Big', 'Edm.Int64'], ['Amount', 'Edm.Decimal" Precision="38" Scale="10'], ['Loose', 'Edm.Decimal'],
  ['Price', 'Edm.Double'], ['Ratio', 'Edm.Single'], ['Tiny', 'Edm.Byte'], ['Flag', 'Edm.Boolean'], ['Day', 'Edm.Date'],
  ['At', 'Edm.DateTimeOffset" Precision="3'], ['Clock', 'Edm.TimeOfDay'], ['Uid', 'Edm.Guid'], ['Blob', 'Edm.Binary'], ['Name', 'Edm.String'],
  ['Address', 'Demo.Address'], ['Tags', 'Collection(Edm.String)'],
];

const METADATA = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="Demo" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <ComplexType Name="Address"><Property Name="City" Type="Edm.String"/><Property Name="Zip" Type="Edm.String"/></ComplexType>
    <EntityType Name="Item"><Key><PropertyRef Name="ID"/></Key>${PROPERTIES.map(([name, type]) => `<Property Name="${name}" Type="${type}"/>`).join('')}</EntityType>
    <EntityContainer Name="C"><EntitySet Name="Items" EntityType="Demo.Item"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const ONE = {
  ID: 1, Big: '9007199254740993', Amount: '1234567890123456789012345678.0123456789', Loose: '3.14159265358979323846', Price: 0.1, Ratio: 1.5,
  Tiny: 255, Flag: true, Day: '2024-02-29', At: '2024-03-01T10:00:00.123+02:00', Clock: '13:20:05.123456', Uid: '0B8F4A8E-1C2D-4E5F-8A9B-0C1D2E3F4A5B',
  Blob: 'AQID_w', Name: 'tab\there\nline\r\\N back\\slash "q" Zoë', Address: { City: 'Kö\tln', Zip: '50667' }, Tags: ['a', 'b\\c'],
};
const TWO = {
  ID: 2, Big: '-9223372036854775808', Amount: '-0.0000000001', Loose: '-1E+3', Price: 'NaN', Ratio: -0.25, Tiny: 0, Flag: false, Day: '1969-12-31',
  At: '1969-12-31T23:59:59.999Z', Clock: '00:00:00', Uid: '00000000-0000-0000-0000-000000000000', Blob: '', Name: '', Address: { City: null, Zip: null }, Tags: [],
};
const NULLS = { ID: 3, Big: null, Amount: null, Loose: null, Price: null, Ratio: null, Tiny: null, Flag: null, Day: null, At: null, Clock: null, Uid: null, Blob: null, Name: null, Address: null, Tags: [] };
/** The second page sends ID 2 again, changed: a service whose pages overlap. */
const PAGES = [[ONE, TWO], [{ ...TWO, Name: '\\.', Price: 'INF' }, NULLS]];

let srv: TestServer;
let od: ODataClient;
let postgres: PostgresDatabase;
beforeAll(async () => {
  [srv, postgres] = await Promise.all([
    startServer((req, res) => {
      const { pathname, searchParams } = new URL(req.url ?? '/', 'http://x');
      const version = { 'odata-version': '4.0' };
      if (pathname.endsWith('/$metadata')) {
        res.writeHead(200, { 'content-type': 'application/xml', ...version }).end(METADATA);
      } else if (pathname.endsWith('/Items')) {
        const page = Number(searchParams.get('$skiptoken') ?? 0);
        sendJSON(res, 200, { '@odata.context': '$metadata#Items', value: PAGES[page], ...(page === 0 ? { '@odata.nextLink': 'Items?$skiptoken=1' } : {}) }, version);
      } else {
        sendJSON(res, 404, { error: { code: '404', message: 'not found' } }, version);
      }
    }),
    startPostgresDatabase(),
  ]);
  od = createODataClient({ serviceURL: `${srv.origin}/odata/`, version: '4.0', http: { retry: false } });
  await postgres.client.query("SET TIME ZONE 'UTC'");
}, 120_000);
afterAll(async () => {
  await od?.close();
  await postgres?.close();
  await srv?.close();
});

const TEXT_COLUMNS = ['ID', 'Big', 'Amount', 'Loose', 'Price', 'Ratio', 'Tiny', 'Flag', 'Day', 'At', 'Clock', 'Uid', 'Blob', 'Name'];

async function tableRows(table: string): Promise<Record<string, unknown>[]> {
  const list = TEXT_COLUMNS.map((c) => `"${c}"::text AS "${c}"`).join(', ');
  return (await postgres.client.query(`SELECT ${list}, "Address", "Tags" FROM ${table} ORDER BY "ID"`)).rows;
}

const EXPECTED = [
  {
    ID: '1', Big: '9007199254740993', Amount: '1234567890123456789012345678.0123456789', Loose: '3.14159265358979323846', Price: '0.1', Ratio: '1.5', Tiny: '255',
    Flag: 'true', Day: '2024-02-29', At: '2024-03-01 08:00:00.123+00', Clock: '13:20:05.123456', Uid: '0b8f4a8e-1c2d-4e5f-8a9b-0c1d2e3f4a5b', Blob: '\\x010203ff',
    Name: 'tab\there\nline\r\\N back\\slash "q" Zoë', Address: { City: 'Kö\tln', Zip: '50667' }, Tags: ['a', 'b\\c'],
  },
  {
    ID: '2', Big: '-9223372036854775808', Amount: '-0.0000000001', Loose: '-1000', Price: 'Infinity', Ratio: '-0.25', Tiny: '0', Flag: 'false', Day: '1969-12-31',
    At: '1969-12-31 23:59:59.999+00', Clock: '00:00:00', Uid: '00000000-0000-0000-0000-000000000000', Blob: '\\x', Name: '\\.', Address: { City: null, Zip: null }, Tags: [],
  },
  { ID: '3', ...Object.fromEntries(TEXT_COLUMNS.slice(1).map((c) => [c, null])), Address: null, Tags: [] },
];

describe('syncEntitySet into PostgreSQL by COPY', () => {
  it('every column kind keeps its exact value (escapes, NaN, bytea, jsonb, NULL); a key a later page sends again replaces the row', async () => {
    const snapshot = await syncEntitySet({ od, entitySet: 'Items', into: postgres.url, table: 'items', mode: 'snapshot' });
    expect(snapshot).toMatchObject({ run: 'snapshot', upserted: 4, pages: 2 });
    expect(await tableRows('items')).toEqual(EXPECTED);
    // The same through a change-tracking read (the service gives no delta link: loaded as a snapshot).
    const notices: string[] = [];
    const load = await syncEntitySet({ od, entitySet: 'Items', into: postgres.url, table: 'items_auto', onNotice: (n) => notices.push(n) });
    expect(load).toMatchObject({ run: 'load', mode: 'snapshot' });
    expect(await tableRows('items_auto')).toEqual(EXPECTED);
    expect(notices.join('\n')).toMatch(/does not track changes of Items/);
    // A run again replaces every row in place.
    expect(await syncEntitySet({ od, entitySet: 'Items', into: postgres.url, table: 'items' })).toMatchObject({ run: 'snapshot', upserted: 4 });
    expect(await tableRows('items')).toEqual(EXPECTED);
  });
});
