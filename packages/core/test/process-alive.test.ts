import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sendJSON, startServer } from '@sluice/testkit';
import { closeAfterEach } from './close-after-each.js';

// Issue 29 audit: every wait a request awaits keeps the process alive, so a script whose service runs in
// another process gets its answer instead of Node exiting 13 ("unsettled top-level await") in silence.
const track = closeAfterEach();
const child = fileURLToPath(new URL('./fixtures/waits-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../..', import.meta.url));

async function runChild(service: string, mode: string): Promise<{ code: number | null; stdout: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, service, mode], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  return { code, stdout };
}

describe('a script waiting on the client does not exit silently', () => {
  it('a retry backoff', async () => {
    let calls = 0;
    const s = track(await startServer((_req, res) => sendJSON(res, ++calls < 3 ? 503 : 200, {})));
    expect(await runChild(s.origin, 'retry')).toEqual({ code: 0, stdout: 'statuses 200\n' });
    expect(s.requests).toHaveLength(3);
  }, 30_000);

  it('a Retry-After wait', async () => {
    let calls = 0;
    const s = track(await startServer((_req, res) => sendJSON(res, ++calls === 1 ? 429 : 200, {}, calls === 1 ? { 'retry-after': '1' } : {})));
    expect(await runChild(s.origin, 'pause')).toEqual({ code: 0, stdout: 'statuses 200\n' });
    expect(s.requests).toHaveLength(2);
  }, 30_000);

  it('a rate-limit token', async () => {
    const s = track(await startServer((_req, res) => sendJSON(res, 200, {})));
    expect(await runChild(s.origin, 'rateLimit')).toEqual({ code: 0, stdout: 'statuses 200,200,200\n' });
    expect(s.requests).toHaveLength(3);
  }, 30_000);
});
