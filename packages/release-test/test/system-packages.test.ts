import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from './repo.js';

// `npm test` and `.ci/run` share one step that checks the system packages the suite needs
// (scripts/system-packages.sh reading scripts/system-packages.txt).

const run = promisify(execFile);
const SCRIPT = resolve(ROOT, 'scripts/system-packages.sh');
const dir = mkdtempSync(join(tmpdir(), 'sluice-syspkg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function check(list: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const file = join(dir, `list-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(file, list);
  try {
    const { stdout, stderr } = await run('bash', [SCRIPT, ...args], { env: { ...process.env, SLUICE_SYSTEM_PACKAGES: file } });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('scripts/system-packages.sh', () => {
  it('passes when every probe finds its program (a command on PATH or a path glob)', async () => {
    const r = await check(`# comment\n\ncoreutils  ls|/nonexistent/x  # why\nbash  /nonexistent/*/x|${process.execPath.replace(/node$/, '*')}\n`);
    expect(r).toMatchObject({ code: 0, stdout: 'system packages: all present\n' });
  });

  it('stops at once naming the missing packages and the one command that installs them', async () => {
    const r = await check('coreutils ls\nsluice-no-such-pkg  sluice-no-such-cmd|/nonexistent/*/bin/initdb  # test\nother-missing /nope\n', '--check');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('system packages missing: sluice-no-such-pkg other-missing');
    expect(r.stderr).toContain('apt-get update && apt-get install -y --no-install-recommends sluice-no-such-pkg other-missing');
    expect(r.stdout).toBe('');
  });

  it('refuses a list line without a probe (exit 2, naming the package)', async () => {
    const r = await check('half-written-line\n');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no probe for half-written-line');
  });

  it('is the one step: npm test runs it first, .ci/run runs it and keeps no list of its own', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['pretest']).toBe('bash scripts/system-packages.sh');
    const ci = readFileSync(resolve(ROOT, '.ci/run'), 'utf8');
    expect(ci).toMatch(/^scripts\/system-packages\.sh\b/m);
    expect(ci).not.toMatch(/apt-get install/);
    const list = readFileSync(resolve(ROOT, 'scripts/system-packages.txt'), 'utf8');
    for (const pkg of ['redis-server', 'tinyproxy', 'openssl', 'bsdutils', 'postgresql', 'g++', 'make', 'python3']) {
      expect(list).toMatch(new RegExp(`^${pkg.replace(/\+/g, '\\+')}\\s+\\S`, 'm'));
    }
  });
});
