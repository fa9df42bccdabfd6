import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';

let cli: SluiceCLI;
let srv: ODataTestServer;
let dir: string;
beforeAll(async () => {
  // Pages wait 100 ms, $count does not: the total is known long before the first page arrives.
  [cli, srv, dir] = await Promise.all([
    sluiceCLI(), startODataServer({ products: 3000, pageSize: 500, faults: { latencyMs: 100 } }), mkdtemp(join(tmpdir(), 'sluice-progress-')),
  ]);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs sluice with stdin, stdout and stderr on a pseudo-terminal (util-linux `script`); resolves with what the terminal showed. */
function inTerminal(args: string[]): Promise<{ code: number | null; screen: string }> {
  const command = [process.execPath, cli.path, ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TERM: 'xterm' } });
  child.stdin.end();
  return collectCLI(child).then((r) => ({ code: r.code, screen: r.stdout }));
}

describe('sluice export progress', () => {
  it('draws a progress bar with records, records/s, percentage and ETA when stderr is a terminal', async () => {
    const out = join(dir, 'tty.ndjson');
    const r = await inTerminal(['export', srv.v4, 'Products', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.screen).toMatch(/█+ 100% \| 3,000\/3,000 records \| [\d,]+ records\/s \| [\d.]+ s \| ETA/);
    expect(r.screen).toMatch(/sluice: exported 3,000 records of Products to .*tty\.ndjson/);
    expect((await readFile(out, 'utf8')).split('\n')).toHaveLength(3001);
    // A total needs $count: asked for once, beside the pages.
    expect(srv.requests.filter((q) => q.url.includes('/Products/$count'))).toHaveLength(1);
  });

  it('draws no bar when the records themselves go to the terminal', async () => {
    const r = await inTerminal(['export', srv.v4, 'Products', '--top', '3', '--select', 'ID']);
    expect(r.code).toBe(0);
    expect(r.screen).toContain('{"ID":1}\r\n{"ID":2}\r\n{"ID":3}\r\n');
    expect(r.screen).not.toContain('records/s |');
  });

  it('--progress never keeps a terminal quiet but for the summary', async () => {
    const r = await inTerminal(['export', srv.v4, 'Products', '--out', join(dir, 'never.ndjson'), '--progress', 'never']);
    expect(r.code).toBe(0);
    expect(r.screen).not.toContain('records/s |');
    expect(r.screen).toContain('sluice: exported 3,000 records');
  });

  it('shows no progress when stderr is a pipe, and asks for no $count', async () => {
    const before = srv.requests.length;
    const r = await cli.run(['export', srv.v4, 'Products', '--top', '10']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sluice: exported 10 records of Products to stdout in [^\n]+\n$/);
    expect(srv.requests.slice(before).some((q) => q.url.includes('$count'))).toBe(false);
  });

  it('--progress always writes progress lines to a pipe too', async () => {
    const r = await cli.run(['export', srv.v4, 'Products', '--progress', 'always', '-o', join(dir, 'always.ndjson')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/3,000\/3,000 records \| [\d,]+ records\/s/);
  });
});
