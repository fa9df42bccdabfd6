import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

let cli: SluiceCLI;
let srv: TestServer;
beforeAll(async () => {
  cli = await sluiceCLI();
  // Answers every entity read with the key segment it was asked for; no $metadata (the key is typed by its literal).
  srv = await startServer((req, res) => {
    const url = req.url ?? '';
    const v2 = url.startsWith('/v2/');
    if (url.includes('$metadata')) return void res.writeHead(404).end();
    const segment = decodeURIComponent(url.slice(url.lastIndexOf('/') + 1));
    res.writeHead(200, { 'content-type': 'application/json', ...(v2 ? { dataserviceversion: '2.0' } : { 'odata-version': '4.0' }) });
    res.end(JSON.stringify(v2 ? { d: { Segment: segment } } : { Segment: segment }));
  });
});
afterAll(() => srv.close());

async function segmentOf(version: '2' | '4', set: string, key: string): Promise<string> {
  const r = await cli.run(['get', `${srv.origin}/v${version}/`, set, key, '--version', version]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { Segment: string }).Segment;
}

describe('sluice get reads OData key literals', () => {
  it('v2: datetime, datetimeoffset, guid, time, X/binary, L and M forms, also in a composite key', async () => {
    expect(await segmentOf('2', 'Events', "datetime'2024-01-31T10:00:00'")).toBe("Events(datetime'2024-01-31T10:00:00')");
    expect(await segmentOf('2', 'Events', "datetimeoffset'2024-01-31T10:00:00Z'")).toBe("Events(datetimeoffset'2024-01-31T10:00:00Z')");
    expect(await segmentOf('2', 'Docs', "guid'0F8FAD5B-D9CB-469F-A165-70867728950E'")).toBe("Docs(guid'0f8fad5b-d9cb-469f-a165-70867728950e')");
    expect(await segmentOf('2', 'Shifts', "time'PT13H45M'")).toBe("Shifts(time'PT13H45M')");
    expect(await segmentOf('2', 'Blobs', "X'0A1B'")).toBe("Blobs(X'0A1B')");
    expect(await segmentOf('2', 'Blobs', "binary'0a1b'")).toBe("Blobs(X'0A1B')");
    expect(await segmentOf('2', 'Orders', '9007199254740993L')).toBe('Orders(9007199254740993L)');
    expect(await segmentOf('2', 'Prices', '1.50M')).toBe('Prices(1.50M)');
    expect(await segmentOf('2', 'Lines', "OrderID=42L,Day=datetime'2024-01-31T00:00:00',Code='A''B'")).toBe("Lines(OrderID=42L,Day=datetime'2024-01-31T00:00:00',Code='A''B')");
  }, 60_000);

  it('v4: the same forms written as v4 writes them; binary is base64url', async () => {
    expect(await segmentOf('4', 'Docs', "guid'0f8fad5b-d9cb-469f-a165-70867728950e'")).toBe('Docs(0f8fad5b-d9cb-469f-a165-70867728950e)');
    expect(await segmentOf('4', 'Events', "datetimeoffset'2024-01-31T10:00:00Z'")).toBe('Events(2024-01-31T10:00:00Z)');
    expect(await segmentOf('4', 'Blobs', "binary'T0RhdGE'")).toBe("Blobs(binary'T0RhdGE')");
    expect(await segmentOf('4', 'Orders', '9007199254740993L')).toBe('Orders(9007199254740993)');
  }, 60_000);

  it('a malformed literal exits 2 before any request, naming it; nothing is pasted into the URL', async () => {
    const before = srv.requests.length;
    for (const [key, says] of [
      ["datetime'2024-01-31T10:00:00'') or (1 eq 1'", /is not a valid DateTime/],
      ["guid'not-a-guid'", /"not-a-guid" is not a valid GUID/],
      ["X'0G'", /the binary key literal "0G" is not hexadecimal/],
      ["stamp'1'", /unknown key literal "stamp'1'"/],
    ] as const) {
      const r = await cli.run(['get', `${srv.origin}/v2/`, 'Events', key, '--version', '2']);
      expect(r.code, key).toBe(2);
      expect(r.stderr).toMatch(says);
    }
    // Only the $metadata reads that type keys reached the server.
    expect(srv.requests.slice(before).every((q) => q.url.endsWith('$metadata'))).toBe(true);
  }, 60_000);
});
