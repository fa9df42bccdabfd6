import type { ServerResponse } from 'node:http';
import { createGzip } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

const MiB = 1024 * 1024;
let cli: SluiceCLI;
let srv: TestServer;

/** Writes `size` bytes of `piece` repeated, waiting for drain, unless the client went away. */
async function pour(out: NodeJS.WritableStream & { destroyed?: boolean }, size: number, piece = 'a'): Promise<void> {
  const chunk = piece.repeat(Math.ceil(64 * 1024 / piece.length));
  for (let sent = 0; sent < size && !out.destroyed; sent += chunk.length) {
    if (!out.write(chunk)) await new Promise((resolve) => { out.once('drain', resolve); out.once('close', resolve); });
  }
}

/** One page holding one record with a `Blob` of `size` characters, gzip-compressed as it is written. */
async function hugeRecordPage(res: ServerResponse, size: number): Promise<void> {
  res.writeHead(200, { 'content-type': 'application/json;odata.metadata=minimal', 'odata-version': '4.0', 'content-encoding': 'gzip' });
  const gzip = createGzip({ level: 1 });
  gzip.pipe(res);
  res.on('close', () => gzip.destroy());
  gzip.write('{"value":[{"ID":1,"Blob":"');
  await pour(gzip, size);
  gzip.end('"}]}');
}

/** `$metadata` of one entity type with `navs` navigation properties and `sets` entity sets of it, as CSDL JSON. */
function csdl(navs: number, sets: number): string {
  const type: Record<string, unknown> = { $Kind: 'EntityType', $Key: ['ID'], ID: { $Type: 'Edm.Int32' } };
  for (let i = 0; i < navs; i++) type[`Nav${i}`] = { $Kind: 'NavigationProperty', $Type: 'S.Thing' };
  const container: Record<string, unknown> = { $Kind: 'EntityContainer' };
  for (let i = 0; i < sets; i++) container[`Set${i}`] = { $Collection: true, $Type: 'S.Thing' };
  return JSON.stringify({ $Version: '4.01', $EntityContainer: 'S.Box', S: { Thing: type, Box: container } });
}

const XML_HEAD = '<?xml version="1.0"?><edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices>'
  + '<Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm"><EntityType Name="T"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32"/>';

beforeAll(async () => {
  cli = await sluiceCLI();
  const json = csdl(2000, 2000);
  srv = await startServer(async (req, res) => {
    const url = req.url ?? '';
    if (url.startsWith('/huge/Items')) return hugeRecordPage(res, 70 * MiB);
    if (url.startsWith('/big/Items')) return hugeRecordPage(res, 3 * MiB);
    if (url.startsWith('/csdl/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(json);
    }
    if (url.startsWith('/declared/$metadata')) {
      // Declares 1 GiB; sends the start only: the client must give up on the header.
      res.writeHead(200, { 'content-type': 'application/xml', 'content-length': String(1024 * MiB) });
      return void res.write(XML_HEAD);
    }
    if (url.startsWith('/endless/$metadata')) {
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.write(XML_HEAD);
      return pour(res, Number.MAX_SAFE_INTEGER, '<Property Name="P" Type="Edm.String"/>');
    }
    if (url.startsWith('/endless/Items')) {
      res.writeHead(200, { 'content-type': 'application/json;odata.metadata=minimal', 'odata-version': '4.0' });
      return void res.end('{"value":[{"ID":1,"Name":"one"}]}');
    }
    res.writeHead(404).end();
  });
});
afterAll(() => srv.close());

describe('sluice size limits', () => {
  it('a gzip page holding one record of 70 MiB goes past the default --max-record-size of 64 MiB: exit 1, naming the limit', async () => {
    const r = await cli.run(['export', `${srv.origin}/huge/`, 'Items', '--version', '4', '-q']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`sluice: a record is larger than the limit of 64 MiB (--max-record-size); nothing more was read (GET ${srv.origin}/huge/Items) `
      + '(raise it if the service really sends that much, such as --max-record-size 256MiB)\n');
  });

  it('--max-record-size lowers and raises the limit', async () => {
    const low = await cli.run(['export', `${srv.origin}/big/`, 'Items', '--version', '4', '-q', '--max-record-size', '1MiB']);
    expect(low.code).toBe(1);
    expect(low.stderr).toMatch(/^sluice: a record is larger than the limit of 1 MiB \(--max-record-size\)/);
    const high = await cli.run(['export', `${srv.origin}/big/`, 'Items', '--version', '4', '-q', '--max-record-size', '4MiB']);
    expect(high.code).toBe(0);
    expect((JSON.parse(high.stdout) as { Blob: string }).Blob).toHaveLength(3 * MiB);
    const bad = await cli.run(['export', `${srv.origin}/big/`, 'Items', '--max-record-size', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("option '--max-record-size <size>' argument 'lots' is invalid. expected a size such as 64MiB");
  });

  it('a $metadata that declares 1 GiB is refused at its header by the default --max-metadata-size of 64 MiB', async () => {
    const r = await cli.run(['metadata', `${srv.origin}/declared/`, '--version', '4']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('sluice: the $metadata document is larger than the limit of 64 MiB (--max-metadata-size); nothing more was read '
      + '(raise it if the service really sends that much, such as --max-metadata-size 256MiB)\n');
  });

  it('an endless $metadata stops at --max-metadata-size; export --format csv then takes its columns from the first record', async () => {
    const r = await cli.run(['metadata', `${srv.origin}/endless/`, '--version', '4', '--max-metadata-size', '2MiB']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sluice: the \$metadata document is larger than the limit of 2 MiB \(--max-metadata-size\)/);
    const csv = await cli.run(['export', `${srv.origin}/endless/`, 'Items', '--version', '4', '-q', '-f', 'csv', '--max-metadata-size', '2MiB']);
    expect(csv).toMatchObject({ code: 0, stdout: 'ID,Name\r\n1,one\r\n', stderr: '' });
  });

  it('CSDL JSON of one type with 2,000 navigation properties used by 2,000 sets prints in proportion to the document, not sets times navigation', async () => {
    const size = csdl(2000, 2000).length;
    const r = await cli.run(['metadata', `${srv.origin}/csdl/`, '--version', '4']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2000 + 4);
    expect(r.stdout).toMatch(/\nSet1999 +S\.Thing +ID +1 +Nav0 -> Thing, Nav1 -> Thing, .*Nav5 -> Thing, \.\.\. \(1994 more, see --json\)\n$/);
    expect(r.stdout.length).toBeLessThan(2 * size);
    const json = await cli.run(['metadata', `${srv.origin}/csdl/`, '--version', '4', '--json']);
    expect(json.code).toBe(0);
    const md = JSON.parse(json.stdout) as { entitySets: unknown[]; entityTypes: { navigation: unknown[] }[] };
    expect(md.entitySets).toHaveLength(2000);
    expect(md.entityTypes.map((t) => t.navigation.length)).toEqual([2000]);
    expect(json.stdout.length).toBeLessThan(2 * size);
  });
});
