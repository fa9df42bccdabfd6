import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { debugEnables } from '../src/debug-log.js';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();
const child = fileURLToPath(new URL('./fixtures/debug-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** Runs the child against a server that answers 503 twice, then 200; resolves with its stderr. */
async function run(env: Record<string, string>): Promise<string> {
  let calls = 0;
  const s = track(await startServer((_req, res) => sendJSON(res, ++calls < 3 ? 503 : 200, {})));
  const { NODE_DEBUG: _n, DEBUG: _d, ...rest } = process.env;
  const proc = spawn(process.execPath, ['--import', 'tsx', child, s.origin], { cwd: root, env: { ...rest, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  expect(code).toBe(0);
  expect(s.requests).toHaveLength(3);
  return stderr;
}

function expectNoSecret(text: string): void {
  for (const secret of ['pw-s3cret', 'Bearer-s3cret', 'c00kie', 'q-s3cret']) expect(text).not.toContain(secret);
}

describe('debug log', () => {
  it('NODE_DEBUG=sluice writes one line per attempt and per retry, credentials redacted', async () => {
    const stderr = await run({ NODE_DEBUG: 'sluice' });
    const lines = stderr.trim().split('\n').filter((l) => l.startsWith('SLUICE '));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^SLUICE \d+: GET http:\/\/127\.0\.0\.1:\d+\/items\?access_token=\[REDACTED\]&page=2&password=\[REDACTED\] 503 [\d.]+ms attempt 1\/3$/);
    expect(lines[1]).toMatch(/ retry 2\/3 in [\d.]+ms \(status 503\)$/);
    expect(lines[3]).toMatch(/ retry 3\/3 in [\d.]+ms \(status 503\)$/);
    expect(lines[4]).toMatch(/ 200 [\d.]+ms attempt 3\/3$/);
    expectNoSecret(stderr);
  }, 30_000);

  it('DEBUG=sluice:* writes the same lines under the sluice:http namespace', async () => {
    const stderr = await run({ DEBUG: 'other,sluice:*' });
    const lines = stderr.trim().split('\n').filter((l) => l.startsWith('sluice:http '));
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatch(/^sluice:http GET \S+ 200 [\d.]+ms attempt 3\/3$/);
    expectNoSecret(stderr);
  }, 30_000);

  it('writes nothing when neither variable names sluice', async () => {
    const stderr = await run({ NODE_DEBUG: 'http2', DEBUG: 'express:*,-sluice:*' });
    expect(stderr).not.toMatch(/sluice|SLUICE/);
  }, 30_000);

  it('DEBUG patterns follow the debug package: wildcards, lists, exclusions', () => {
    expect(debugEnables('sluice:*')).toBe(true);
    expect(debugEnables('*')).toBe(true);
    expect(debugEnables('a, sluice:http')).toBe(true);
    expect(debugEnables('*,-sluice:*')).toBe(false);
    expect(debugEnables('sluice')).toBe(false);
    expect(debugEnables(undefined)).toBe(false);
  });
});
