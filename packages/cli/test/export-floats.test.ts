// `sluice export` of an entity type with Doubles and Singles: with the model loaded (the partition planner
// loads it) the client decodes "INF", "-INF", "NaN" into Infinity, -Infinity, NaN, which JSON.stringify would
// write as null. NDJSON and JSON write them as OData JSON spells them (as `sluice get` does), CSV cells too.
// A plain export does not load $metadata: its records are written as the service sent them.
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

const EDMX = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>
  <Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm">
    <ComplexType Name="Range"><Property Name="Max" Type="Edm.Double"/></ComplexType>
    <EntityType Name="Reading"><Key><PropertyRef Name="ID"/></Key>
      <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="High" Type="Edm.Double"/>
      <Property Name="Low" Type="Edm.Double"/><Property Name="Mean" Type="Edm.Single"/><Property Name="Note" Type="Edm.String"/>
      <Property Name="Span" Type="S.Range"/><Property Name="Samples" Type="Collection(Edm.Double)"/>
    </EntityType>
    <EntityContainer Name="C"><EntitySet Name="Readings" EntityType="S.Reading"/></EntityContainer>
  </Schema>
</edmx:DataServices></edmx:Edmx>`;

const SENT = [
  { ID: 1, High: 'INF', Low: '-INF', Mean: 'NaN', Note: 'NaN', Span: { Max: 'INF' }, Samples: [1.5, 'NaN', '-INF'] },
  { ID: 2, High: 2.5, Low: '-0.5', Mean: 1, Note: 'INF', Span: null, Samples: [] },
];
/** What an export with the model loaded writes: the special values as OData JSON spells them, numeric strings as numbers. */
const WRITTEN = [
  { ID: 1, High: 'INF', Low: '-INF', Mean: 'NaN', Note: 'NaN', Span: { Max: 'INF' }, Samples: [1.5, 'NaN', '-INF'] },
  { ID: 2, High: 2.5, Low: -0.5, Mean: 1, Note: 'INF', Span: null, Samples: [] },
];

/** The CSV of both: the same cells whether the client decoded the Doubles or not. */
const CSV = 'ID,High,Low,Mean,Note,Span,Samples\r\n' +
  '1,INF,-INF,NaN,NaN,"{""Max"":""INF""}","[1.5,""NaN"",""-INF""]"\r\n' +
  '2,2.5,-0.5,1,INF,,[]\r\n';

let cli: SluiceCLI;
let srv: TestServer;
let root: string;
let n = 0;
beforeAll(async () => {
  cli = await sluiceCLI();
  root = await mkdtemp(join(tmpdir(), 'sluice-floats-'));
  srv = await startServer((req, res) => {
    const v4 = { 'odata-version': '4.0' };
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname.endsWith('$metadata')) return void res.writeHead(200, { 'content-type': 'application/xml', ...v4 }).end(EDMX);
    if (url.pathname.endsWith('$count')) return void res.writeHead(200, { 'content-type': 'text/plain', ...v4 }).end(String(SENT.length));
    const top = url.searchParams.get('$top');
    const desc = /desc/.test(url.searchParams.get('$orderby') ?? '');
    const rows = desc ? [...SENT].reverse() : SENT;
    res.writeHead(200, { 'content-type': 'application/json', ...v4 });
    res.end(JSON.stringify({ '@odata.context': '$metadata#Readings', value: top === null ? rows : rows.slice(0, Number(top)) }));
  });
}, 120_000);
afterAll(async () => {
  await srv.close();
  await rm(root, { recursive: true, force: true });
});

const lines = (text: string): unknown[] => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as unknown);

describe('sluice export: Doubles that JSON has no number for', () => {
  it('a plain NDJSON export writes the records as sent ("INF", "-INF", "NaN" strings; it does not load $metadata)', async () => {
    const r = await cli.run(['export', `${srv.origin}/svc/`, 'Readings', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual(SENT);
  });

  it('a plain JSON export too, also with --version 4', async () => {
    for (const extra of [[], ['--version', '4']]) {
      const r = await cli.run(['export', `${srv.origin}/svc/`, 'Readings', '--format', 'json', '--quiet', ...extra]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(SENT);
    }
  });

  it('CSV cells hold INF, -INF, NaN (a Double\'s "-INF" is no formula to guard)', async () => {
    const r = await cli.run(['export', `${srv.origin}/svc/`, 'Readings', '--format', 'csv', '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(CSV);
  });

  it('--partitions writes Infinity, -Infinity, NaN as "INF", "-INF", "NaN" in the part files (NDJSON and JSON), not null', async () => {
    for (const format of ['ndjson', 'json']) {
      const out = join(root, `parts-${++n}`);
      const r = await cli.run(['export', `${srv.origin}/svc/`, 'Readings', '--partitions', '1', '--format', format, '--quiet', '--out', out]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const parts = (await readdir(out)).filter((f) => f.startsWith('part-'));
      const records = (await Promise.all(parts.map(async (f) => {
        const text = await readFile(join(out, f), 'utf8');
        return format === 'json' ? JSON.parse(text) as unknown[] : lines(text);
      }))).flat();
      expect(records).toEqual(WRITTEN);
    }
  });

  it('--partitions writes them as INF, -INF, NaN in CSV part files too', async () => {
    const out = join(root, `parts-${++n}`);
    const r = await cli.run(['export', `${srv.origin}/svc/`, 'Readings', '--partitions', '1', '--format', 'csv', '--quiet', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await readFile(join(out, 'part-00001.csv'), 'utf8')).toBe(CSV);
  });
});
