import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createODataClient, type ODataClient } from '@sluice/odata';
import { NESTED_DELTA_EDMX, sluiceCLI, startODataServer, startServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { keyOfId } from '../src/delta-export.js';
import { parseCSV } from './helpers.js';

interface Order { ID: number; Customer: string; Status: string }

let srv: ODataTestServer;
let cli: SluiceCLI;
let dir: string;
let od: ODataClient;
/** Requests of `$skiptoken` pages are refused while this is set (a failure in the middle of a delta read). */
let refusePages = false;

beforeAll(async () => {
  [srv, cli, dir] = await Promise.all([
    startODataServer({ products: 3, writes: true, authorize: (req) => !(refusePages && (req.url ?? '').includes('skiptoken')) }),
    sluiceCLI(),
    mkdtemp(join(tmpdir(), 'sluice-delta-cli-')),
  ]);
  od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { retry: false } });
});
afterAll(async () => {
  await od.close();
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

const lines = (text: string): Record<string, unknown>[] => text.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('sluice export --delta-state', () => {
  it('exports everything first, then only what changed, with removals marked; the state file advances after each run', async () => {
    const orders = od.from<Order>('Orders');
    const ids: number[] = [];
    for (const c of ['A', 'B', 'C']) ids.push((await orders.create({ Customer: c })).value!.ID);
    const state = join(dir, 'state.json');

    const first = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state]);
    expect(first.code).toBe(0);
    const all = lines(first.stdout);
    expect(all).toHaveLength(srv.writes!.store.orders.size);
    expect(all.map((r) => r['Customer'])).toEqual(expect.arrayContaining(['A', 'B', 'C']));
    const kept = JSON.parse(await readFile(state, 'utf8')) as Record<string, string>;
    expect(Object.values(kept)).toEqual([expect.stringMatching(/\$deltatoken=\d+$/)]);

    await orders.key(ids[0]!).update({ Status: 'Open' }, { etag: '*' });
    await orders.key(ids[1]!).delete({ etag: '*' });
    const created = (await orders.create({ Customer: 'D' })).value!.ID;

    const out = join(dir, 'changes.ndjson');
    const second = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--out', out, '--quiet']);
    expect(second.code).toBe(0);
    const changes = lines(await readFile(out, 'utf8'));
    expect(changes).toHaveLength(3);
    expect(changes[0]).toMatchObject({ ID: ids[0], Status: 'Open' });
    expect(changes[1]).toEqual({ '@removed': { reason: 'deleted' }, '@id': expect.stringMatching(new RegExp(`Orders\\(${ids[1]}\\)$`)) });
    expect(changes[2]).toMatchObject({ ID: created, Customer: 'D' });
    expect(await readFile(state, 'utf8')).not.toBe(JSON.stringify(kept));

    const third = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--format', 'json', '--quiet']);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout)).toEqual([]);
  }, 60_000);

  it('keeps the state file as it was when the export fails, so the next run gives the same changes', async () => {
    const orders = od.from<Order>('Orders');
    const state = join(dir, 'failing.json');
    expect((await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--quiet'])).code).toBe(0);
    const before = await readFile(state, 'utf8');
    for (const c of ['E', 'F', 'G']) await orders.create({ Customer: c }); // two pages of changes
    refusePages = true;
    const failed = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--quiet']);
    refusePages = false;
    expect(failed.code).toBe(1);
    expect(await readFile(state, 'utf8')).toBe(before);
    const again = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--quiet']);
    expect(again.code).toBe(0);
    expect(lines(again.stdout).map((r) => r['Customer'])).toEqual(['E', 'F', 'G']);
  }, 60_000);

  it('exits 1 with a hint when the kept link expired, and --delta-reset reads everything again', async () => {
    const state = join(dir, 'expired.json');
    expect((await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--quiet'])).code).toBe(0);
    const before = await readFile(state, 'utf8');
    const w = srv.writes!.store;
    w.expiredBefore = w.seq + 1;
    try {
      const expired = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state]);
      expect(expired.code).toBe(1);
      expect(expired.stdout).toBe('');
      expect(expired.stderr).toContain('no longer accepts the delta link');
      expect(expired.stderr).toContain('--delta-reset');
      expect(await readFile(state, 'utf8')).toBe(before);
    } finally {
      w.expiredBefore = 0;
    }
    const reset = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--delta-reset', '--quiet']);
    expect(reset.code).toBe(0);
    expect(lines(reset.stdout)).toHaveLength(w.orders.size);
    // the link saved by the full read is accepted again
    w.expiredBefore = w.seq;
    try {
      const next = await cli.run(['export', srv.v4, 'Orders', '--delta-state', state, '--quiet']);
      expect(next.code).toBe(0);
      expect(next.stdout).toBe('');
    } finally {
      w.expiredBefore = 0;
    }
  }, 60_000);

  it('refuses CSV with --expand, --page-size and --delta-reset alone as usage errors, before reading', async () => {
    const state = join(dir, 'usage.json');
    const cases: Array<[string[], RegExp]> = [
      [['export', srv.v4, 'Orders', '--delta-state', state, '--format', 'csv', '--expand', 'Lines'], /--format csv does not go with --expand/],
      [['export', srv.v4, 'Orders', '--delta-state', state, '--page-size', '10'], /--page-size/],
      [['export', srv.v4, 'Orders', '--delta-reset'], /--delta-reset needs --delta-state/],
    ];
    for (const [args, message] of cases) {
      const r = await cli.run(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    }
    await expect(readFile(state, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('sluice export --delta-state on OData v2 (SAP Gateway __delta)', () => {
  it.each([['auto-detected', []], ['--version 2', ['--version', '2']]] as const)('exports everything, then only the changes (%s); the kept link is the !deltatoken one', async (_name, version) => {
    const orders = od.from<Order>('Orders');
    const a = (await orders.create({ Customer: 'V2-A' })).value!.ID;
    const b = (await orders.create({ Customer: 'V2-B' })).value!.ID;
    const state = join(dir, `v2-${version.length}.json`);

    const first = await cli.run(['export', srv.v2, 'Orders', '--delta-state', state, '--quiet', ...version]);
    expect(first.code, first.stderr).toBe(0);
    const all = lines(first.stdout);
    expect(all).toHaveLength(srv.writes!.store.orders.size);
    expect(all.map((r) => r['Customer'])).toEqual(expect.arrayContaining(['V2-A', 'V2-B']));
    expect(all[0]).not.toHaveProperty('__metadata');
    expect(Object.values(JSON.parse(await readFile(state, 'utf8')) as Record<string, string>)).toEqual([expect.stringMatching(/Orders\?!deltatoken='\d+'$/)]);

    await orders.key(a).update({ Status: 'Shipped' }, { etag: '*' });
    await orders.key(b).delete({ etag: '*' });
    const second = await cli.run(['export', srv.v2, 'Orders', '--delta-state', state, '--quiet', ...version]);
    expect(second.code, second.stderr).toBe(0);
    const changes = lines(second.stdout);
    expect(changes).toHaveLength(2);
    expect(changes[0]).toMatchObject({ ID: a, Status: 'Shipped' });
    expect(changes[1]).toEqual({ '@removed': { reason: 'deleted' }, '@id': `${srv.v2}Orders(${b})` });
    expect((await cli.run(['export', srv.v2, 'Orders', '--delta-state', state, '--quiet', ...version])).stdout).toBe('');
  }, 60_000);
});

describe('sluice export --delta-state --format csv', () => {
  it.each(['v4', 'v2'] as const)('OData %s: the same header every run; removals are rows with _removed, _id and the key filled in', async (version) => {
    const root = version === 'v4' ? srv.v4 : srv.v2;
    const orders = od.from<Order>('Orders');
    const kept = (await orders.create({ Customer: `${version}-keep, "quoted"` })).value!.ID;
    const gone = (await orders.create({ Customer: `${version}-gone` })).value!.ID;
    const state = join(dir, `csv-${version}.json`);
    const out = join(dir, `orders-${version}.csv`);

    const first = await cli.run(['export', root, 'Orders', '--delta-state', state, '--format', 'csv', '--out', out, '--quiet']);
    expect(first.code, first.stderr).toBe(0);
    const [header, ...rows] = parseCSV(await readFile(out, 'utf8'));
    expect(header!.slice(0, 4)).toEqual(['_removed', '_id', 'ID', 'Customer']);
    expect(rows).toHaveLength(srv.writes!.store.orders.size);
    expect(rows.every((r) => r[0] === '' && r[1] === '' && r.length === header!.length)).toBe(true);
    expect(rows.find((r) => r[2] === String(kept))![3]).toBe(`${version}-keep, "quoted"`);

    await orders.key(kept).update({ Status: 'Open' }, { etag: '*' });
    await orders.key(gone).delete({ etag: '*' });
    const second = await cli.run(['export', root, 'Orders', '--delta-state', state, '--format', 'csv', '--out', out, '--quiet']);
    expect(second.code, second.stderr).toBe(0);
    const [again, changed, removed, ...more] = parseCSV(await readFile(out, 'utf8'));
    expect(again).toEqual(header);
    expect(more).toEqual([]);
    const status = header!.indexOf('Status');
    expect(changed!.slice(0, 4)).toEqual(['', '', String(kept), `${version}-keep, "quoted"`]);
    expect(changed![status]).toBe('Open');
    expect(removed).toEqual(['deleted', `${root}Orders(${gone})`, String(gone), ...header!.slice(3).map(() => '')]);
  });
});

describe('sluice export --delta-state with nested deltas (OData JSON 4.01 "Nav@delta")', () => {
  // The first read, then the kept delta link answered with changes of the customer's expanded orders.
  const FULL = { '@odata.context': '$metadata#Customers', value: [{ ID: 'BOTTM', ContactName: 'Susan', Orders: [{ OrderID: 10643 }] }], '@odata.deltaLink': 'Customers?$expand=Orders&$deltatoken=1' };
  const DELTA = {
    '@context': '$metadata#Customers/$delta',
    value: [
      {
        '@id': "Customers('BOTTM')", ID: 'BOTTM', ContactName: 'Susan Halvenstern',
        'Orders@delta': [
          { '@removed': { reason: 'deleted' }, '@id': 'Orders(10643)' },
          { '@removed': { reason: 'changed' }, OrderID: 10692 },
          { '@id': 'Orders(10645)', OrderID: 10645, ShippedDate: '2026-11-01T00:00:00Z' },
        ],
      },
      { '@removed': { reason: 'deleted' }, '@id': "Customers('DUMON')" },
    ],
    '@deltaLink': 'Customers?$expand=Orders&$deltatoken=2',
  };

  it('writes an entity change with its related changes as "Orders@delta" (NDJSON and JSON)', async () => {
    const service = await startServer((req, res) => {
      const url = req.url ?? '';
      if (url.startsWith('/svc/$metadata')) { res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }).end(NESTED_DELTA_EDMX); return; }
      const body = url === '/svc/' ? { value: [{ name: 'Customers', url: 'Customers' }] } : url.includes('$deltatoken=1') ? DELTA : FULL;
      res.writeHead(200, { 'content-type': 'application/json', 'odata-version': '4.0' }).end(JSON.stringify(body));
    });
    try {
      const root = `${service.origin}/svc/`;
      const state = join(dir, 'nested.json');
      const first = await cli.run(['export', root, 'Customers', '--expand', 'Orders', '--delta-state', state, '--quiet']);
      expect(first.code, first.stderr).toBe(0);
      expect(lines(first.stdout)).toEqual([{ ID: 'BOTTM', ContactName: 'Susan', Orders: [{ OrderID: 10643 }] }]);
      const changed = {
        ID: 'BOTTM', ContactName: 'Susan Halvenstern',
        'Orders@delta': [
          { '@removed': { reason: 'deleted' }, '@id': 'Orders(10643)' },
          // named by key only, and the CLI loads no $metadata to tell its set (NavigationPropertyBinding): no @id
          { '@removed': { reason: 'changed' }, OrderID: 10692 },
          { OrderID: 10645, ShippedDate: '2026-11-01T00:00:00Z' },
        ],
      };
      const removed = { '@removed': { reason: 'deleted' }, '@id': "Customers('DUMON')" };
      const second = await cli.run(['export', root, 'Customers', '--expand', 'Orders', '--delta-state', state, '--quiet']);
      expect(second.code, second.stderr).toBe(0);
      expect(lines(second.stdout)).toEqual([changed, removed]);
      await writeFile(state, await readFile(state, 'utf8').then((text) => text.replace('deltatoken=2', 'deltatoken=1')));
      const json = await cli.run(['export', root, 'Customers', '--expand', 'Orders', '--delta-state', state, '--format', 'json', '--quiet']);
      expect(json.code, json.stderr).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([changed, removed]);
    } finally {
      await service.close();
    }
  }, 60_000);
});

describe('keyOfId', () => {
  it('reads single, composite, quoted and v2-typed keys from an entity id, and nothing from other forms', () => {
    expect(keyOfId('https://h/svc/Orders(42)', ['ID'])).toEqual({ ID: '42' });
    expect(keyOfId('Orders(42)', ['ID'])).toEqual({ ID: '42' });
    expect(keyOfId("https://h/svc/Items(OrderID=1,ItemNo='A%2FB,''C''')", ['OrderID', 'ItemNo'])).toEqual({ OrderID: '1', ItemNo: "A/B,'C'" });
    expect(keyOfId("https://h/sap/opu/odata/sap/X/Items(guid'0a1b2c3d-0000-4000-8000-000000000001')", ['Guid'])).toEqual({ Guid: '0a1b2c3d-0000-4000-8000-000000000001' });
    expect(keyOfId('https://h/x/Orders(42L)', ['ID'])).toEqual({ ID: '42' });
    expect(keyOfId('https://h/x/Orders(42)', ['A', 'B'])).toEqual({});
    expect(keyOfId('https://h/x/Orders', ['ID'])).toEqual({});
    expect(keyOfId('urn:uuid:1234', ['ID'])).toEqual({});
  });
});
