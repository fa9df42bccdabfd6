import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { expectedProduct, parseCSV } from './helpers.js';

const PRODUCTS = 1234;
let srv: ODataTestServer;
let cli: SluiceCLI;
let dir: string;

beforeAll(async () => {
  [srv, cli, dir] = await Promise.all([
    startODataServer({ products: PRODUCTS, pageSize: 200 }), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-export-')),
  ]);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

describe('sluice export', () => {
  it('writes every record of every page to stdout as NDJSON, in order, with a summary on stderr', async () => {
    const r = await cli.run(['export', srv.v4, 'Products']);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(range(PRODUCTS).map(expectedProduct));
    expect(r.stderr).toMatch(/^sluice: exported 1,234 records of Products to stdout in [\d.]+ s \([\d,]+ records\/s, peak memory \d+ MiB\)\n$/);
  });

  it('writes a JSON array with --format json --out, and leaves no temporary file behind', async () => {
    const out = join(dir, 'products.json');
    const r = await cli.run(['export', srv.v4, 'Products', '--format', 'json', '--out', out, '--quiet']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('');
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual(range(PRODUCTS).map(expectedProduct));
    expect(await readdir(dir)).toEqual(['products.json']);
    await rm(out);
  });

  it('writes RFC 4180 CSV with the columns of $metadata: quotes doubled, null empty, CRLF line ends', async () => {
    const out = join(dir, 'products.csv');
    const r = await cli.run(['export', srv.v4, 'Products', '-f', 'csv', '-o', out]);
    expect(r.code).toBe(0);
    const text = await readFile(out, 'utf8');
    expect(text.endsWith('\r\n')).toBe(true);
    const [header, ...rows] = parseCSV(text);
    const columns = Object.keys(expectedProduct(1));
    expect(header).toEqual(columns);
    expect(rows).toHaveLength(PRODUCTS);
    rows.forEach((row, n) => {
      const expected = expectedProduct(n + 1);
      expect(row).toEqual(columns.map((c) => (expected[c] === null ? '' : String(expected[c]))));
    });
    expect(text).toContain('"Description of ""3"" – ünïcødé"');
    await rm(out);
  });

  it('takes CSV columns from --select, in that order, and honours --filter, --orderby and --top', async () => {
    const r = await cli.run(['export', srv.v4, 'Products', '-f', 'csv', '--select', 'Name,ID', '--filter', 'ID le 50', '--orderby', 'ID desc', '--top', '3']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Name,ID\r\nProduct 50,50\r\nO\'Brien 49,49\r\nProduct 48,48\r\n');
    const sent = srv.requests.at(-1)!.url;
    expect(decodeURIComponent(sent)).toContain('$filter=ID le 50&$select=Name,ID&$orderby=ID desc&$top=3');
  });

  it('writes expanded navigation as JSON in a CSV cell', async () => {
    const r = await cli.run(['export', srv.v4, 'Products', '-f', 'csv', '--select', 'ID', '--expand', 'Category', '--top', '1']);
    expect(r.code).toBe(0);
    const [header, row] = parseCSV(r.stdout);
    expect(header).toEqual(['ID', 'Category']);
    expect(row![0]).toBe('1');
    expect(JSON.parse(row![1]!)).toMatchObject({ ID: 1 });
  });

  it('reads an SAP-style OData v2 service the same way', async () => {
    const r = await cli.run(['export', srv.v2, 'Products', '--select', 'ID,Name', '--top', '250', '--param', 'sap-client=100', '-q']);
    expect(r.code).toBe(0);
    const records = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { ID: number; Name: string });
    expect(records.map((p) => p.ID)).toEqual(range(250));
    expect(records[6]!.Name).toBe("O'Brien 7");
    expect(srv.requests.filter((q) => q.url.includes('DEMO_SRV/Products')).every((q) => q.url.includes('sap-client=100'))).toBe(true);
  });

  it('writes v2 dates (/Date(ms)/ on the wire) as ISO 8601 in CSV', async () => {
    const r = await cli.run(['export', srv.v2, 'Products', '-f', 'csv', '--select', 'ID,ReleaseDate', '--top', '2', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('ID,ReleaseDate\r\n1,2020-01-01T01:00:01.000Z\r\n2,2020-01-01T02:00:02.000Z\r\n');
  });

  it('asks for the page size with Prefer: odata.maxpagesize', async () => {
    const before = srv.requests.length;
    const r = await cli.run(['export', srv.v4, 'Products', '--top', '120', '--page-size', '50', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(120);
    const pages = srv.requests.slice(before).filter((q) => q.url.includes('/Products'));
    expect(pages).toHaveLength(3);
    expect(pages.every((q) => q.headers.prefer === 'odata.maxpagesize=50')).toBe(true);
  });

  it('writes an empty result as an empty file, a header-only CSV or an empty array', async () => {
    const args = ['export', srv.v4, 'Products', '--filter', 'ID lt 0', '-q'];
    expect((await cli.run(args)).stdout).toBe('');
    expect((await cli.run([...args, '-f', 'json'])).stdout).toBe('[\n]\n');
    expect((await cli.run([...args, '-f', 'csv', '--select', 'ID,Name'])).stdout).toBe('ID,Name\r\n');
  });

  it('keeps an existing file untouched when the export fails', async () => {
    const out = join(dir, 'keep.ndjson');
    await writeFile(out, 'previous export\n');
    srv.setFaults({ failPage: { page: 2, status: 500, times: 100 } });
    try {
      const r = await cli.run(['export', srv.v4, 'Products', '-o', out, '--retries', '0']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^sluice: .*status 500/m);
    } finally {
      srv.setFaults({});
    }
    expect(await readFile(out, 'utf8')).toBe('previous export\n');
    expect(await readdir(dir)).toEqual(['keep.ndjson']);
    await rm(out);
  });

  it('sends --header on every request and --out - writes to stdout', async () => {
    const before = srv.requests.length;
    const r = await cli.run(['export', srv.v4, 'Products', '--top', '2', '-H', 'sap-language: EN', '--header', 'x-trace: cli-test', '--out', '-', '-q']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(2);
    const sent = srv.requests.slice(before);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.every((q) => q.headers['sap-language'] === 'EN' && q.headers['x-trace'] === 'cli-test')).toBe(true);
  });
});

describe('sluice export CSV formula guard', () => {
  it("prefixes text that a spreadsheet would run as a formula with ', keeps negative numbers, and --csv-raw turns it off", async () => {
    const gw = await startODataServer({ products: 1, writes: true });
    try {
      const names = ['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\tx', '-42', 'plain'];
      const created: number[] = [];
      // an order before the ones the export asks for: --filter must leave it out
      const decoy = await fetch(`${gw.v4}Orders`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ Customer: '=decoy', Amount: 1, Quantity: 1, Status: 'New' }),
      });
      expect(decoy.status).toBe(201);
      for (const name of names) {
        const res = await fetch(`${gw.v4}Orders`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ Customer: name, Amount: -12.5, Quantity: -3, Status: 'New' }),
        });
        expect(res.status).toBe(201);
        created.push(((await res.json()) as { ID: number }).ID);
      }
      const args = ['export', gw.v4, 'Orders', '-f', 'csv', '--select', 'Customer,Amount,Quantity', '--filter', `ID ge ${Math.min(...created)}`, '--orderby', 'ID', '-q'];
      const guarded = await cli.run(args);
      expect(guarded.code).toBe(0);
      const rows = parseCSV(guarded.stdout).slice(1);
      expect(rows.map((r) => r[0])).toEqual(["'=1+1", "'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", '-42', 'plain']);
      expect(rows.map((r) => [r[1], r[2]])).toEqual(names.map(() => ['-12.5', '-3']));
      const raw = await cli.run([...args, '--csv-raw']);
      expect(raw.code).toBe(0);
      expect(parseCSV(raw.stdout).slice(1).map((r) => r[0])).toEqual(names);
    } finally {
      await gw.close();
    }
  });
});
