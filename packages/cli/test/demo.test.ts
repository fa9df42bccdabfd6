import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { collectCLI } from '@sluice/testkit';

const root = fileURLToPath(new URL('../../..', import.meta.url));

describe('npm start', () => {
  it('exports the demo service behind OAuth with the real CLI, prints the summary and three commands to try, exits 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'examples/demo.ts'], {
      cwd: root, env: { ...process.env, DEMO_RECORDS: '3000' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r = await collectCLI(child);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('3,000 products in an OData v4 service that accepts only OAuth access tokens');
    expect(r.stderr).toMatch(/sluice: exported 3,000 records of Products to .*products\.ndjson in [\d.]+ s \([\d,]+ records\/s, peak memory \d+ MiB\)/);
    expect(r.stdout).toMatch(/1 token request for \d+ service requests/);
    expect(r.stdout.match(/^ {2}npx sluice /gm)).toHaveLength(3);
    // The client secret reaches the exporter through the environment, never on screen.
    expect(r.stdout + r.stderr).not.toContain('service-secret');
  }, 60_000);
});
