// compileWasmBaselineOnly: undici's HTTP parser is not re-compiled by TurboFan (whose one compilation mallocs ~36 MiB),
// seen in V8's peak of malloced memory in a child process that makes HTTP requests with and without it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleURL = new URL('../src/wasm-tier.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * V8's peak malloced memory (MiB) of a node process that makes requests of 100 KB with undici, and how many it made:
 * `until` MiB is reached or 20,000 requests are made, whichever comes first (TurboFan compiles on a worker thread,
 * so when it is done depends on the machine's load, not on a count), and at least `atLeast` requests.
 */
async function peakMallocedMiB(baselineOnly: boolean, until: number, atLeast: number): Promise<{ mib: number; requests: number }> {
  const script = `
    import { createServer } from 'node:http';
    import { getHeapStatistics } from 'node:v8';
    ${baselineOnly ? `const { compileWasmBaselineOnly } = await import(${JSON.stringify(moduleURL)}); if (!compileWasmBaselineOnly([])) throw new Error('not set');` : ''}
    const { request } = await import('undici');
    const body = ('x'.repeat(999) + '\\n').repeat(100);
    const server = createServer((_req, res) => { res.end(body); }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = 'http://127.0.0.1:' + server.address().port + '/';
    const peak = () => getHeapStatistics().peak_malloced_memory / 2 ** 20;
    let requests = 0;
    while (requests < ${atLeast} || (peak() < ${until} && requests < 20000)) {
      await (await request(url)).body.text();
      requests++;
    }
    server.close();
    process.stdout.write(JSON.stringify({ mib: peak(), requests }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject); child.once('close', resolve); });
  expect(code).toBe(0);
  return JSON.parse(out) as { mib: number; requests: number };
}

describe('compileWasmBaselineOnly', () => {
  it("keeps undici's parser on Liftoff: V8 mallocs a few MiB, not the ~36 MiB of a TurboFan compilation", async () => {
    // Without it, requests go on until TurboFan's compilation shows (on a quiet machine after a few hundred); with
    // it, the same number of requests and at least 800.
    const withTurbofan = await peakMallocedMiB(false, 20, 0);
    expect(withTurbofan.mib).toBeGreaterThan(20);
    const baseline = await peakMallocedMiB(true, Infinity, Math.max(800, withTurbofan.requests));
    expect(baseline.mib).toBeLessThan(12);
  }, 120_000);

  it('leaves a Liftoff or tier-up flag node was started with', async () => {
    const { compileWasmBaselineOnly } = await import('../src/wasm-tier.js');
    expect(compileWasmBaselineOnly(['--no-liftoff-only'])).toBe(false);
    expect(compileWasmBaselineOnly(['--wasm-dynamic-tiering'])).toBe(false);
  });
});
