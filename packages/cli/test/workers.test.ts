// sluice worker: 4 processes read a 16-partition export through BullMQ on a real redis-server, tokens from
// oidc-provider; one worker is SIGKILLed in the middle of a partition, which another worker then rewrites.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerAuthorizer, OIDC_CLIENTS, sluiceCLI, startODataServer, startOIDCProvider, startRedisServer,
  type ODataTestServer, type OIDCProvider, type RedisTestServer, type SluiceCLI,
} from '@sluice/testkit';
import { closedPort } from './helpers.js';

const PRODUCTS = 1600;
const RATE = 20;
const BURST = 5;
let cli: SluiceCLI;
let op: OIDCProvider;
let srv: ODataTestServer;
let redis: RedisTestServer;
let dir: string;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  [cli, op, redis, dir] = await Promise.all([sluiceCLI(), startOIDCProvider(), startRedisServer(), mkdtemp(join(tmpdir(), 'sluice-workers-'))]);
  srv = await startODataServer({ products: PRODUCTS, pageSize: 20, authorize: bearerAuthorizer(op.issuer) });
}, 60_000);
afterAll(async () => {
  for (const w of workers) if (w.exitCode === null && w.signalCode === null) w.kill('SIGKILL');
  await Promise.all([srv.close(), op.close(), redis.close()]);
  await rm(dir, { recursive: true, force: true });
});

const credentials = (): Record<string, string> => ({ SLUICE_CLIENT_ID: OIDC_CLIENTS.service.clientId, SLUICE_CLIENT_SECRET: OIDC_CLIENTS.service.clientSecret, SLUICE_TOKEN_URL: op.tokenURL });

/** A worker process and its stderr so far. */
function startWorker(): { child: ChildProcess; stderr: () => string; ready: Promise<void> } {
  const child = cli.spawn(['worker', redis.url, '--concurrency', '2', '--lock-duration', '2s', '--stalled-interval', '1s', '--verbose'], { env: { ...process.env, ...credentials() } });
  workers.push(child);
  let text = '';
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => { resolveReady = r; });
  child.stderr!.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    if (text.includes('waiting for partitions')) resolveReady();
  });
  child.stdout!.resume();
  return { child, stderr: () => text, ready };
}

describe('sluice worker fleet', () => {
  it('4 workers export 16 partitions; one SIGKILLed mid-partition: every record once, manifest complete, one token, the rate kept', async () => {
    const fleet = [startWorker(), startWorker(), startWorker(), startWorker()];
    await Promise.all(fleet.map((w) => w.ready));
    const out = join(dir, 'fleet');
    const grants = op.grants.length;
    const mark = srv.requests.length;
    const exporting = cli.run(['export', srv.v4, 'Products', '--partitions', '16', '--queue', redis.url, '--rate', String(RATE), '--burst', String(BURST), '--out', out, '--wait'], { env: credentials() });

    // The victim: a worker that started a partition and has read a page of it since.
    const victim = await new Promise<(typeof fleet)[number]>((resolve) => {
      const timer = setInterval(() => {
        const found = fleet.find((w) => / part-\d{5}\.ndjson \(.*\): started\n(.*\n)*.*Products\?.*-> 200/.test(w.stderr()));
        if (found) {
          clearInterval(timer);
          resolve(found);
        }
      }, 20);
    });
    victim.child.kill('SIGKILL');

    const r = await exporting;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/sluice: exported 1,600 records of Products in 16 partitions to .*_manifest\.json/);
    expect(r.stderr).toContain('sluice: 16 of 16 partitions done');

    const files = (await readdir(out)).sort();
    expect(files).toEqual(['_manifest.json', ...Array.from({ length: 16 }, (_, i) => `part-${String(i + 1).padStart(5, '0')}.ndjson`)]);
    const manifest = JSON.parse(await readFile(join(out, '_manifest.json'), 'utf8')) as { records: number; runner: string; partitions: { file: string; records: number }[] };
    expect(manifest).toMatchObject({ records: PRODUCTS, runner: 'queue' });
    const ids: number[] = [];
    for (const p of manifest.partitions) {
      const got = (await readFile(join(out, p.file), 'utf8')).split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { ID: number }).ID);
      expect(got).toHaveLength(p.records);
      ids.push(...got);
    }
    expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: PRODUCTS }, (_, i) => i + 1));

    // The partitions the killed worker had started and not finished were written whole by the others.
    const victimText = victim.stderr();
    const started = [...victimText.matchAll(/ (part-\d{5}\.ndjson \(.*?\)): started\n/g)].map((m) => m[1]!);
    const finished = (text: string, name: string): boolean => new RegExp(`${name.replace(/[().*]/g, '\\$&')}: \\d[\\d,]* records`).test(text);
    const unfinished = started.filter((name) => !finished(victimText, name));
    expect(unfinished.length).toBeGreaterThan(0);
    const survivors = fleet.filter((w) => w !== victim).map((w) => w.stderr()).join('');
    for (const name of unfinished) expect(finished(survivors, name), name).toBe(true);
    expect(op.grants.length - grants).toBe(1);

    const times = srv.requests.slice(mark).map((q) => q.at);
    const perSecond = new Map<number, number>();
    for (const t of times) perSecond.set(Math.floor((t - times[0]!) / 1000), (perSecond.get(Math.floor((t - times[0]!) / 1000)) ?? 0) + 1);
    // The shared budget: rate plus burst in a second, and half a second of the rate for arrivals that a busy
    // test process timestamps late, as the redis package's rate test allows (a stall at the first arrival stretches
    // the first second); four workers each with its own budget would reach four times the rate.
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(RATE + BURST + RATE / 2);

    for (const w of fleet.filter((x) => x !== victim)) {
      const exited = new Promise((resolve) => w.child.once('exit', resolve));
      w.child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('Parquet parts keep --compression through the queue: each part file gzip-compressed, every record once', async () => {
    const worker = startWorker();
    await worker.ready;
    const out = join(dir, 'parquet-gzip');
    try {
      const r = await cli.run(['export', srv.v4, 'Products', '--filter', 'ID le 200', '--partitions', '2', '--queue', redis.url, '--format', 'parquet', '--compression', 'gzip', '--out', out, '--wait'], { env: credentials() });
      expect(r.code).toBe(0);
      const ids: number[] = [];
      for (const file of ['part-00001.parquet', 'part-00002.parquet']) {
        const bytes = await readFile(join(out, file));
        const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        expect(parquetMetadata(buffer).row_groups[0]!.columns.every((c) => c.meta_data!.codec === 'GZIP')).toBe(true);
        const rows = await parquetReadObjects({ file: buffer, columns: ['ID'], compressors: { GZIP: (input: Uint8Array) => gunzipSync(input) } });
        ids.push(...rows.map((row) => row['ID'] as number));
      }
      expect(ids.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      worker.child.kill('SIGTERM');
    }
  }, 60_000);

  it('--wait names the partitions that failed for good and exits 1 without a manifest; --retry-backoff sets the first retry delay', async () => {
    const worker = startWorker();
    await worker.ready;
    const out = join(dir, 'failing');
    srv.setFaults({ failPage: { page: 2, status: 500, times: 1_000_000 } });
    try {
      // Partitions of 80 records in pages of 20: the third page of each fails, every attempt.
      const r = await cli.run(['export', srv.v4, 'Products', '--filter', 'ID le 160', '--partitions', '2', '--queue', redis.url, '--attempts', '2', '--retry-backoff', '150ms', '--out', out, '--wait'], { env: credentials() });
      expect(r.code).toBe(1);
      // The partition jobs carry the backoff asked for (BullMQ keeps each job's options in its hash).
      const exportId = /as export (\S+) /.exec(r.stderr)?.[1];
      const client = new Redis(redis.url);
      try {
        const opts = JSON.parse((await client.hget(`bull:sluice-export:${exportId}-p00001`, 'opts')) ?? '{}') as { attempts?: number; backoff?: unknown };
        expect(opts).toMatchObject({ attempts: 2, backoff: { type: 'exponential', delay: 150 } });
      } finally {
        client.disconnect();
      }
      // The export fails as soon as one partition has spent its attempts; the other may still be retrying.
      expect(r.stderr).toMatch(/sluice: export \S+ failed: [12] partitions? failed for good \(part-0000[12]\.ndjson \(ID (lt|ge) 81\) after 2 attempts: .*status 500/);
      expect((await readdir(out)).filter((f) => f === '_manifest.json')).toEqual([]);
    } finally {
      srv.setFaults({});
      worker.child.kill('SIGTERM');
    }
  }, 60_000);

  it('Ctrl-C stops waiting, not the export: exit 130 and a note that it goes on in the workers', async () => {
    const out = join(dir, 'stopped');
    const child = cli.spawn(['export', srv.v4, 'Products', '--partitions', '2', '--queue', redis.url, '--queue-name', 'nobody-reads-this', '--out', out, '--wait'], { env: { ...process.env, ...credentials() } });
    let text = '';
    let sent = false;
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (!sent && text.includes('0 of 2 partitions done')) sent = child.kill('SIGINT');
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(130);
    expect(text).toMatch(/sluice: stopped waiting; export \S+ goes on in the workers\n$/);
  }, 60_000);

  it('refuses to enqueue into a queue left by another sluice version: exit 1, nothing enqueued, nothing written', async () => {
    const queue = 'left-by-an-older-sluice';
    const out = join(dir, 'older');
    const client = new Redis(redis.url);
    try {
      await client.set(`bull:${queue}:sluice-data-version`, '0');
      const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '2', '--queue', redis.url, '--queue-name', queue, '--out', out], { env: credentials() });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`queue ${queue} holds export jobs of data version 0, this sluice writes and reads version 1; nothing was enqueued`);
      // No job, no id counter, no wait list: only the version mark (BullMQ's queue meta may or may not be written yet
      // when the enqueue is refused, so it is left out of the comparison).
      const keys = (await client.keys(`bull:${queue}:*`)).filter((key) => key !== `bull:${queue}:meta`);
      expect(keys).toEqual([`bull:${queue}:sluice-data-version`]);
      expect(await readdir(out)).toEqual([]);
    } finally {
      client.disconnect();
    }
  });

  it('refuses to enqueue when Redis is down: exit 1 before any request to the service, nothing written', async () => {
    const out = join(dir, 'down');
    const mark = srv.requests.length;
    const r = await cli.run(['export', srv.v4, 'Products', '--partitions', '2', '--queue', `redis://127.0.0.1:${await closedPort()}`, '--out', out], { env: credentials() });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/sluice: Redis at redis:\/\/127\.0\.0\.1:\d+ is not reachable \(.*ECONNREFUSED.*\); nothing was enqueued/);
    expect(await readdir(out).catch(() => 'no directory')).toBe('no directory');
    expect(srv.requests.length).toBe(mark);
  });
});
