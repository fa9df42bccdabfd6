import { spawn } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { FileSink } from '../src/output.js';
import { whenRequest } from './helpers.js';

let cli: SluiceCLI;
let srv: ODataTestServer;
let dir: string;
beforeAll(async () => {
  [cli, srv, dir] = await Promise.all([sluiceCLI(), startODataServer({ products: 5 }), mkdtemp(join(tmpdir(), 'sluice-out-'))]);
  await chmod(dir, 0o755);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

/** Runs an export to `out` and says whether the service saw any request. */
async function exportTo(out: string, uid?: number): Promise<{ code: number | null; stderr: string; requests: number }> {
  const before = srv.requests.length;
  const args = ['export', srv.v4, 'Products', '--out', out, '-q'];
  let child;
  if (uid === undefined) child = cli.spawn(args);
  else {
    // The bundle's own folder is private to this user: another user runs a copy (the entry and its chunks).
    const copy = join(dir, 'bundle');
    await mkdir(copy, { recursive: true });
    for (const name of await readdir(cli.dir)) {
      await copyFile(join(cli.dir, name), join(copy, name));
      await chmod(join(copy, name), 0o644);
    }
    await chmod(copy, 0o755);
    child = spawn(process.execPath, [join(copy, 'sluice.mjs'), ...args], { uid, gid: uid, stdio: ['ignore', 'pipe', 'pipe'] });
  }
  const r = await collectCLI(child);
  return { code: r.code, stderr: r.stderr, requests: srv.requests.length - before };
}

describe('sluice export --out is checked before the first request', () => {
  it('discarding a file while a write is in flight ends quietly: no error escapes, the temporary file is gone', async () => {
    const target = join(dir, 'discarded.parquet');
    for (let i = 0; i < 20; i++) {
      const sink = await FileSink.open(target);
      // The export awaits each write; the bytes may still be on their way to the file when it fails.
      const written = sink.write(new Uint8Array(4096 * (i + 1))).catch(() => undefined);
      await sink.discard();
      await written;
    }
    expect((await readdir(dir)).filter((f) => f.startsWith('discarded.parquet'))).toEqual([]);
  });

  it('a folder that does not exist is named, not the temporary file', async () => {
    const r = await exportTo(join(dir, 'missing', 'p.ndjson'));
    expect(r).toEqual({ code: 2, requests: 0, stderr: `sluice: --out ${join(dir, 'missing', 'p.ndjson')}: the folder ${join(dir, 'missing')} does not exist\n` });
  });

  it('a folder as target is refused at once, not at the rename after the export', async () => {
    await mkdir(join(dir, 'folder'));
    const r = await exportTo(join(dir, 'folder'));
    expect(r.code).toBe(2);
    expect(r.requests).toBe(0);
    expect(r.stderr).toMatch(/^sluice: --out \S+\/folder is a folder \(give a file name/);
  });

  it('a read-only target (mode 444) is refused and left as it was', async () => {
    const target = join(dir, 'locked.ndjson');
    await writeFile(target, 'keep me\n');
    await chmod(target, 0o444);
    const r = await exportTo(target);
    expect(r.code).toBe(2);
    expect(r.requests).toBe(0);
    expect(r.stderr).toContain(`sluice: --out ${target} is read-only (mode 444); sluice does not replace it (make it writable`);
    expect(await readFile(target, 'utf8')).toBe('keep me\n');
    expect((await stat(target)).mode & 0o777).toBe(0o444);
  });

  it('a writable target that is replaced keeps its mode', async () => {
    const target = join(dir, 'private.ndjson');
    await writeFile(target, 'old\n');
    await chmod(target, 0o600);
    const r = await exportTo(target);
    expect(r.code).toBe(0);
    expect((await readFile(target, 'utf8')).trimEnd().split('\n')).toHaveLength(5);
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });

  it('a folder the user cannot write to is named, not the temporary file', async () => {
    const locked = join(dir, 'readonly');
    await mkdir(locked);
    await chmod(locked, 0o555);
    // root may write anywhere: run the CLI as nobody then.
    const r = await exportTo(join(locked, 'p.ndjson'), process.getuid?.() === 0 ? 65534 : undefined);
    expect(r.code).toBe(2);
    expect(r.requests).toBe(0);
    expect(r.stderr).toBe(`sluice: --out ${join(locked, 'p.ndjson')}: the folder ${locked} is not writable (sluice writes a temporary file beside the target and renames it; choose a folder you can write to)\n`);
  });
});

describe('temporary files of killed exports', () => {
  it('a SIGKILLed export leaves <name>.sluice-partial-<host>-<pid>; the next run removes it, not one of a live process', async () => {
    const { seen, authorize } = whenRequest((url) => url.includes('skiptoken=300'));
    const slow = await startODataServer({ products: 100_000, pageSize: 100, faults: { latencyMs: 20 }, authorize });
    const sub = join(dir, 'killed');
    await mkdir(sub);
    const out = join(sub, 'orders.ndjson');
    try {
      const child = cli.spawn(['export', slow.v4, 'Products', '--out', out, '-q']);
      const done = collectCLI(child);
      await seen;
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      const leftover = `orders.ndjson.sluice-partial-${hostname()}-${child.pid}`;
      expect(await readdir(sub)).toEqual([leftover]);
      // One of a process that still runs (this one) is not touched.
      const live = `orders.ndjson.sluice-partial-${hostname()}-${process.pid}`;
      await writeFile(join(sub, live), 'in progress\n');
      const r = await cli.run(['export', srv.v4, 'Products', '--out', out, '-q', '--verbose']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`sluice: removed ${leftover}, left by an export that was killed\n`);
      expect((await readdir(sub)).sort()).toEqual(['orders.ndjson', live]);
    } finally {
      await slow.close();
    }
  });
});
