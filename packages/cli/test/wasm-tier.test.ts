// compileWasmBaselineOnly: undici's HTTP parser is not re-compiled by TurboFan (whose one compilation mallocs ~36 MiB),
// seen in V8's peak of malloced memory in a child process that makes HTTP requests with and without it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleURL = new URL('../src/wasm-tier.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../../..', import.meta.url));

/** V8's peak malloced memory (MiB) of a node process that makes 800 requests of 100 KB with undici. */
async function peakMallocedMiB(baselineOnly: boolean): Promise<number> {
  const script = `
    import { createServer } from 'node:http';
    import { getHeapStatistics } from 'node:v8';
    ${baselineOnly ? `const { compileWasmBaselineOnly } = await import(${JSON.stringify(moduleURL)}); if (!compileWasmBaselineOnly([])) throw new Error('not set');` : ''}
    const { request } = await import('undici');
    const body = ('x'.repeat(999) + '\\n').repeat(100);
    const server = createServer((_req, res) => { res.end(body); }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = 'http://127.0.0.1:' + server.address().port + '/';
    for (let i = 0; i < 800; i++) await (await request(url)).body.text();
    server.close();
    process.stdout.write(String(getHeapStatistics().peak_malloced_memory / 2 ** 20));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject); child.once('close', resolve); });
  expect(code).toBe(0);
  return Number(out);
}

describe('compileWasmBaselineOnly', () => {
  it("keeps undici's parser on Liftoff: V8 mallocs a few MiB, not the ~36 MiB of a TurboFan compilation", async () => {
    const [withTurbofan, baseline] = await Promise.all([peakMallocedMiB(false), peakMallocedMiB(true)]);
    expect(withTurbofan).toBeGreaterThan(20);
    expect(baseline).toBeLessThan(12);
  }, 120_000);

  it('leaves a Liftoff or tier-up flag node was started with', async () => {
    const { compileWasmBaselineOnly } = await import('../src/wasm-tier.js');
    expect(compileWasmBaselineOnly(['--no-liftoff-only'])).toBe(false);
    expect(compileWasmBaselineOnly(['--wasm-dynamic-tiering'])).toBe(false);
  });
});
