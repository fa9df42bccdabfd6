import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { expectedProduct, whenRequest } from './helpers.js';

let cli: SluiceCLI;
let dir: string;
beforeAll(async () => { [cli, dir] = await Promise.all([sluiceCLI(), mkdtemp(join(tmpdir(), 'sluice-signals-'))]); });
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A slow service (each page waits) and a promise for the moment the export reaches page 5. */
async function slowService(): Promise<{ srv: ODataTestServer; midway: Promise<void> }> {
  const { seen, authorize } = whenRequest((url) => url.includes('skiptoken=500'));
  const srv = await startODataServer({ products: 100_000, pageSize: 100, faults: { latencyMs: 20 }, authorize });
  return { srv, midway: seen };
}

describe('sluice export under signals', () => {
  it('Ctrl-C (SIGINT) exits 130 and leaves neither the --out file nor a temporary file', async () => {
    const { srv, midway } = await slowService();
    try {
      const out = join(dir, 'interrupted.ndjson');
      const child = cli.spawn(['export', srv.v4, 'Products', '--out', out]);
      const done = collectCLI(child);
      await midway;
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      expect(r.stderr).toMatch(/^sluice: stopped after [\d,]+ records; .*interrupted\.ndjson was not written\n$/);
      expect(await readdir(dir)).toEqual([]);
    } finally {
      await srv.close();
    }
  });

  it('SIGTERM exits 143 and stdout holds whole records only, in order', async () => {
    const { srv, midway } = await slowService();
    try {
      const child = cli.spawn(['export', srv.v4, 'Products', '--select', 'ID,Name']);
      const done = collectCLI(child);
      await midway;
      child.kill('SIGTERM');
      const r = await done;
      expect(r.code).toBe(143);
      expect(r.stdout.endsWith('\n')).toBe(true);
      const records = r.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { ID: number; Name: string });
      expect(records.length).toBeGreaterThanOrEqual(500);
      records.forEach((p, i) => expect(p).toEqual({ ID: i + 1, Name: expectedProduct(i + 1)['Name'] }));
    } finally {
      await srv.close();
    }
  });

  it('an interrupted --format json export on stdout leaves the array open, so parsers refuse it', async () => {
    const { srv, midway } = await slowService();
    try {
      const child = cli.spawn(['export', srv.v4, 'Products', '--select', 'ID', '-f', 'json']);
      const done = collectCLI(child);
      await midway;
      child.kill('SIGINT');
      const r = await done;
      expect(r.code).toBe(130);
      expect(() => JSON.parse(r.stdout) as unknown).toThrow();
      const [open, ...lines] = r.stdout.split('\n');
      expect(open).toBe('[');
      expect(lines.map((l) => JSON.parse(l.replace(/,$/, '')) as unknown)).toEqual(lines.map((_, i) => ({ ID: i + 1 })));
    } finally {
      await srv.close();
    }
  });

  it('a reader that closes stdout early (sluice export | head) ends the export quietly with exit 0', async () => {
    const { srv, midway } = await slowService();
    try {
      const child = cli.spawn(['export', srv.v4, 'Products', '-q']);
      const done = new Promise<{ code: number | null; stderr: string }>((resolve) => {
        let stderr = '';
        child.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
        child.once('close', (code) => resolve({ code, stderr }));
      });
      await midway;
      child.stdout!.destroy();
      const r = await done;
      expect(r).toEqual({ code: 0, stderr: '' });
    } finally {
      await srv.close();
    }
  });
});
