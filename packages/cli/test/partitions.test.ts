import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { expectedProduct, parseCSV } from './helpers.js';

const PRODUCTS = 1234;
let srv: ODataTestServer;
let cli: SluiceCLI;
let root: string;
let n = 0;

beforeAll(async () => {
  [srv, cli, root] = await Promise.all([startODataServer({ products: PRODUCTS, pageSize: 50 }), sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-parts-'))]);
});
afterAll(async () => {
  await srv.close();
  await rm(root, { recursive: true, force: true });
});

const fresh = (): string => join(root, `out-${++n}`);
const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);

interface Manifest {
  complete: boolean; entitySet: string; format: string; filter: string | null; partitionBy: string; requested: number; records: number; note: string | null;
  runner: string; partitions: { index: number; file: string; range: string | null; records: number }[];
}
const manifestOf = async (dir: string): Promise<Manifest> => JSON.parse(await readFile(join(dir, '_manifest.json'), 'utf8')) as Manifest;
const ndjsonIDs = async (dir: string, file: string): Promise<number[]> =>
  (await readFile(join(dir, file), 'utf8')).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { ID: number }).ID);

describe('sluice export --partitions', () => {
  it('writes one NDJSON file per partition and the manifest last: every record exactly once', async () => {
    const out = fresh();
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '8', '--parallel', '3', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sluice: exported 1,234 records of Products in 8 partitions to .* \([\d,]+ records\/s\)\n$/);
    const files = (await readdir(out)).sort();
    expect(files).toEqual(['_manifest.json', ...range(1, 8).map((i) => `part-0000${i}.ndjson`)]);
    const manifest = await manifestOf(out);
    expect(manifest).toMatchObject({ complete: true, entitySet: 'Products', format: 'ndjson', partitionBy: 'ID', requested: 8, records: PRODUCTS, note: null, runner: 'process' });
    expect(manifest.partitions[0]).toMatchObject({ index: 1, file: 'part-00001.ndjson', range: 'ID lt 155' });
    const ids: number[] = [];
    for (const p of manifest.partitions) {
      const got = await ndjsonIDs(out, p.file);
      expect(got).toHaveLength(p.records);
      ids.push(...got);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(range(1, PRODUCTS));
    const first = (await readFile(join(out, 'part-00001.ndjson'), 'utf8')).split('\n')[0]!;
    expect(JSON.parse(first)).toEqual(expectedProduct(1));
  });

  it('reads 16 partitions at once without a warning on stderr (the shared abort signal has a listener per request)', async () => {
    const out = fresh();
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '16', '--parallel', '16', '--quiet', '--out', out]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect((await manifestOf(out)).records).toBe(PRODUCTS);
  });

  it('writes CSV parts with one header each and JSON parts as arrays, split on a string with quotes', async () => {
    const csvOut = fresh();
    const c = await cli.run(['export', srv.v4, 'Products', '--partitions', '5', '--partition-by', 'Name', '-f', 'csv', '--out', csvOut, '--filter', 'ID le 300', '-q']);
    expect(c.code).toBe(0);
    expect(c.stderr).toBe('');
    const manifest = await manifestOf(csvOut);
    expect(manifest.filter).toBe('ID le 300');
    const ids: number[] = [];
    for (const p of manifest.partitions) {
      const [header, ...rows] = parseCSV(await readFile(join(csvOut, p.file), 'utf8'));
      expect(header).toEqual(Object.keys(expectedProduct(1)));
      ids.push(...rows.map((row) => Number(row[0])));
    }
    expect(ids.sort((a, b) => a - b)).toEqual(range(1, 300));

    const jsonOut = fresh();
    const j = await cli.run(['export', srv.v2, 'Products', '--partitions', '3', '--partition-by', 'ReleaseDate', '-f', 'json', '--out', jsonOut, '-q']);
    expect(j.code).toBe(0);
    const all = await Promise.all((await manifestOf(jsonOut)).partitions.map(async (p) => JSON.parse(await readFile(join(jsonOut, p.file), 'utf8')) as { ID: number }[]));
    expect(all.flat().map((r) => r.ID).sort((a, b) => a - b)).toEqual(range(1, PRODUCTS));
  }, 60_000);

  it('writes Parquet parts, each a whole file with its footer', async () => {
    const out = fresh();
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '3', '--partition-by', 'Guid', '-f', 'parquet', '--out', out, '-q']);
    expect(r.code).toBe(0);
    const manifest = await manifestOf(out);
    expect(manifest.partitions.map((p) => p.file)).toEqual(['part-00001.parquet', 'part-00002.parquet', 'part-00003.parquet']);
    const ids: number[] = [];
    for (const p of manifest.partitions) {
      const bytes = await readFile(join(out, p.file));
      const rows = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), columns: ['ID'] });
      expect(rows).toHaveLength(p.records);
      ids.push(...rows.map((row) => Number(row['ID'])));
    }
    expect(ids.sort((a, b) => a - b)).toEqual(range(1, PRODUCTS));
  });

  it('writes one empty part when the filter leaves nothing, and fewer partitions than asked for small sets (said)', async () => {
    const out = fresh();
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '4', '--filter', 'ID lt 0', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('sluice: no record of Products matches: one partition, which reads nothing\n');
    expect(await readdir(out)).toEqual(['_manifest.json', 'part-00001.ndjson']);
    expect(await readFile(join(out, 'part-00001.ndjson'), 'utf8')).toBe('');
    expect(await manifestOf(out)).toMatchObject({ records: 0, partitions: [{ index: 1, range: null, records: 0 }] });

    const small = fresh();
    const s = await cli.run(['export', srv.v4, 'Products', '--partitions', '16', '--filter', 'ID le 3', '--out', small]);
    expect(s.code).toBe(0);
    expect(s.stderr).toContain('sluice: made 3 of the 16 partitions asked for: only 3 records match\n');
    expect((await manifestOf(small)).partitions.map((p) => p.records)).toEqual([1, 1, 1]);
  }, 60_000);

  it('splits by min/max with --boundaries minmax', async () => {
    const out = fresh();
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '4', '--boundaries', 'minmax', '--out', out, '-q']);
    expect(r.code).toBe(0);
    const manifest = await manifestOf(out) as Manifest & { boundaries: string };
    expect(manifest.boundaries).toBe('minmax');
    expect(manifest.partitions.map((p) => p.range)).toEqual(['ID lt 309', 'ID ge 309 and ID lt 618', 'ID ge 618 and ID lt 926', 'ID ge 926']);
    expect(manifest.records).toBe(PRODUCTS);
  });

  it("replaces a former run's parts and manifest; parts it no longer writes and a killed run's temporary files are removed", async () => {
    const out = fresh();
    expect((await cli.run(['export', srv.v4, 'Products', '--partitions', '6', '--out', out, '-q'])).code).toBe(0);
    // pid 2^22 + 1 is above Linux's pid_max limit: no process has it.
    await writeFile(join(out, `part-00003.ndjson.sluice-partial-${hostname()}-4194305`), '{"ID":1}\n');
    expect((await cli.run(['export', srv.v4, 'Products', '--partitions', '2', '--out', out, '-q'])).code).toBe(0);
    expect((await readdir(out)).sort()).toEqual(['_manifest.json', 'part-00001.ndjson', 'part-00002.ndjson']);
    expect((await manifestOf(out)).records).toBe(PRODUCTS);
  });

  it('keeps to --rate in every second across parallel partitions', async () => {
    const out = fresh();
    const mark = srv.requests.length;
    const started = performance.now();
    const r = await cli.run(['export', srv.v4, 'Products', '--filter', 'ID le 600', '--partitions', '8', '--parallel', '8', '--rate', '10', '--burst', '2', '--out', out, '-q']);
    expect(r.code).toBe(0);
    const times = srv.requests.slice(mark).map((q) => q.at);
    expect(times.length).toBeGreaterThan(20);
    // The k-th request (from 0) arrives no sooner than (k + 1 - burst) / rate s after the child started (a request
    // more is allowed for here): a bound a stall of this test process, which timestamps arrivals late, cannot break.
    const early = times.map((at, k) => ({ k, at: Math.round(at - started), least: ((k - 2) / 10) * 1000 })).filter((q) => q.at < q.least - 5);
    expect(early).toEqual([]);
    const perSecond = new Map<number, number>();
    for (const t of times) perSecond.set(Math.floor((t - times[0]!) / 1000), (perSecond.get(Math.floor((t - times[0]!) / 1000)) ?? 0) + 1);
    // Rate plus burst, and half a second of the rate for arrivals such a stall timestamps late
    // (eight partitions each with its own budget would reach eight times the rate).
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(10 + 2 + 5);
  }, 60_000);

  it('stops every partition when one fails for good: no manifest, no temporary file, exit 1', async () => {
    const out = fresh();
    srv.setFaults({ failPage: { page: 2, status: 500, times: 1000 } });
    try {
      const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '4', '--out', out, '--retries', '0']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/sluice: \d of 4 partitions written to .*; no _manifest.json, the export is incomplete\n/);
      expect((await readdir(out)).filter((f) => !/^part-0000\d\.ndjson$/.test(f))).toEqual([]);
    } finally {
      srv.setFaults({});
    }
  });

  it('refuses bad input before reading: exit 2 naming the flag', async () => {
    const file = join(root, 'a-file');
    await writeFile(file, 'x');
    const cases: [string[], RegExp][] = [
      [['--partitions', '4'], /--partitions writes one file per partition: give --out <directory>/],
      [['--partitions', '4', '--out', file], /--out .*a-file is a file; with --partitions it names a directory/],
      [['--partitions', '4', '--out', fresh(), '--partition-by', 'Nope'], /--partition-by: "Nope" is not a property of Products/],
      [['--partitions', '4', '--out', fresh(), '--partition-by', 'Active'], /"Active" of Products is Edm.Boolean, which cannot be split/],
      [['--partitions', '4', '--out', fresh(), '--top', '5'], /--partitions cannot be combined with --top/],
      [['--partitions', '4', '--out', fresh(), '--partition-by', 'Name', '--boundaries', 'minmax'], /--boundaries: 'minmax' needs an integer property; "Name" is Edm.String/],
      [['--parallel', '4'], /--parallel needs --partitions/],
      [['--burst', '4'], /--burst needs --rate/],
      [['--partitions', '4', '--out', fresh(), '--retry-backoff', '2s'], /--retry-backoff needs --queue/],
      [['--partitions', '4', '--out', fresh(), '--queue', 'redis://127.0.0.1:1', '--retry-backoff', '0'], /--retry-backoff.*expected a duration/],
      [['--partitions', '4', '--out', fresh(), '--queue', 'redis://127.0.0.1:1', '--retry-backoff', '61m'], /--retry-backoff.*expected a duration from 1ms to 1h/],
    ];
    for (const [args, message] of cases) {
      const r = await cli.run(['export', srv.v4, 'Products', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    expect(await readFile(file, 'utf8')).toBe('x');
  }, 60_000);
});
