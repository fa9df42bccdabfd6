import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, OIDC_CLIENTS, sluiceCLI, startODataServer, type ODataTestServer, type SluiceCLI } from '@sluice/testkit';
import { closedPort } from './helpers.js';

let cli: SluiceCLI;
let srv: ODataTestServer;
let dir: string;
beforeAll(async () => {
  [cli, srv, dir] = await Promise.all([sluiceCLI(), startODataServer({ products: 5 }), mkdtemp(join(tmpdir(), 'sluice-guard-'))]);
});
afterAll(async () => {
  await srv.close();
  await rm(dir, { recursive: true, force: true });
});

const child = fileURLToPath(new URL('./fixtures/guard-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('sluice never exits without a message', () => {
  it('client credentials with the token endpoint on a closed port: export, count and metadata each print one line, exit non-zero and leave no file', async () => {
    // The service runs in this process, the CLI in its own: nothing else keeps the CLI's event loop alive.
    const env = { SLUICE_CLIENT_ID: OIDC_CLIENTS.service.clientId, SLUICE_CLIENT_SECRET: 'guard-secret-71c', SLUICE_TOKEN_URL: `http://127.0.0.1:${await closedPort()}/token` };
    const out = join(dir, 'token-refused.ndjson');
    for (const args of [['export', srv.v4, 'Products', '--out', out], ['count', srv.v4, 'Products'], ['metadata', srv.v4]]) {
      const r = await cli.run(args, { env });
      // 1 once the token retries end in an error; 70 if the command were left waiting on nothing.
      expect([1, 70], `${args[0]}: ${r.stderr}`).toContain(r.code);
      expect(r.stderr).toMatch(/^sluice: [^\n]+\n$/);
      expect(r.stderr).not.toContain('guard-secret-71c');
      expect(await readdir(dir)).toEqual([]);
    }
  });

  for (const [mode, says] of [
    ['dry', /^sluice: stopped unfinished: nothing was left to wait for \(a defect in sluice: please report it\)\n$/],
    ['throw', /^sluice: thrown in a timer \(an error escaped the command: a defect in sluice: please report it\)\n$/],
    ['reject', /^sluice: rejected with nobody listening \(an error escaped the command: a defect in sluice: please report it\)\n$/],
  ] as const) {
    it(`a command that ends by "${mode}" prints one line, exits 70 and removes its temporary file`, async () => {
      const out = join(dir, `${mode}.ndjson`);
      const proc = spawn(process.execPath, ['--import', 'tsx', child, mode, out], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      const r = await collectCLI(proc);
      expect(r.stderr).toMatch(says);
      expect(r.code).toBe(70);
      expect(await readdir(dir)).toEqual([]);
    });
  }
});
