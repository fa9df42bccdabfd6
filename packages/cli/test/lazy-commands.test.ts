// `sluice` loads a command's implementation, and the packages only it needs, when that command runs: the
// bundle's files a run loads (recorded by a module hook) hold no code of the commands it did not run.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';

let cli: SluiceCLI;
let srv: ODataTestServer;
let dir: string;
beforeAll(async () => {
  [cli, srv, dir] = await Promise.all([sluiceCLI(), startODataServer({ products: 20 }), mkdtemp(join(tmpdir(), 'sluice-loads-'))]);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

const hook = fileURLToPath(new URL('./fixtures/record-loads.mjs', import.meta.url));
let runs = 0;

/** Runs `sluice args` and gives its exit, output and the text of every bundle file it loaded. */
async function traced(args: string[]): Promise<{ code: number | null; stdout: string; loaded: string }> {
  const loads = join(dir, `loads-${++runs}.txt`);
  const child = spawn(process.execPath, ['--import', hook, cli.path, ...args], { env: { ...process.env, SLUICE_LOADS: loads }, stdio: ['ignore', 'pipe', 'pipe'] });
  const r = await collectCLI(child);
  const files = [...new Set((await readFile(loads, 'utf8')).split('\n').filter((u) => u.startsWith('file:')).map((u) => fileURLToPath(u)))];
  const bundled = files.filter((f) => f.startsWith(cli.dir));
  expect(bundled).toContain(cli.path);
  return { code: r.code, stdout: r.stdout, loaded: (await Promise.all(bundled.map((f) => readFile(f, 'utf8')))).join('\n') };
}

// esbuild marks where each input starts in its output (`// packages/sink/src/...`, `// node_modules/bullmq/...`).
const has = (loaded: string, input: string): boolean => loaded.includes(`// ${input}`);
const HEAVY = ['packages/sink/src/', 'packages/codegen/src/', 'packages/queue/src/', 'node_modules/bullmq/', 'node_modules/ioredis/', 'node_modules/pg/', 'node_modules/hyparquet-writer/'];

describe('sluice loads command implementations on demand', () => {
  it('--version and export --help load no command and no client package; the help still lists every option', async () => {
    const version = await traced(['--version']);
    expect(version.code).toBe(0);
    const help = await traced(['export', '--help']);
    expect(help.code).toBe(0);
    for (const flag of ['--format', '--compression', '--delta-state', '--partitions', '--queue', '--retry-backoff', '--token-url', '--pfx', '--filter', '--skip', '--max-metadata-size']) expect(help.stdout).toContain(flag);
    for (const run of [version, help]) {
      for (const input of [...HEAVY, 'packages/core/src/', 'packages/odata/src/', 'node_modules/undici/', 'packages/cli/src/export.ts']) expect(has(run.loaded, input), input).toBe(false);
    }
  });

  it('an NDJSON export without OAuth loads the export and the client, but not OAuth, Parquet, sync, codegen or the queue', async () => {
    const run = await traced(['export', srv.v4, 'Products', '--top', '3', '-q']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(3);
    for (const input of ['packages/cli/src/export.ts', 'packages/odata/src/', 'node_modules/undici/']) expect(has(run.loaded, input), input).toBe(true);
    for (const input of [...HEAVY, 'packages/oauth/src/', 'node_modules/jose/', 'packages/cli/src/parquet-export.ts', 'packages/cli/src/delta-export.ts', 'packages/cli/src/sync.ts']) expect(has(run.loaded, input), input).toBe(false);
  });

  it('a Parquet export loads @sluice/sink; generate loads the codegen', async () => {
    const parquet = await traced(['export', srv.v4, 'Products', '--top', '3', '-f', 'parquet', '--out', join(dir, 'p.parquet'), '-q']);
    expect(parquet.code).toBe(0);
    expect(has(parquet.loaded, 'packages/sink/src/')).toBe(true);
    const generate = await traced(['generate', `${srv.v4}`, '--out', join(dir, 'service.ts')]);
    expect(generate.code).toBe(0);
    expect(has(generate.loaded, 'packages/codegen/src/')).toBe(true);
    expect(has(generate.loaded, 'node_modules/bullmq/')).toBe(false);
  });
});
