// compileWasmBaselineOnly: undici's HTTP parser is not re-compiled by TurboFan (whose one compilation mallocs ~36 MiB),
// seen in V8's peak of malloced memory in a child process that makes HTTP requests with and without it. V8 13
// (Node 24) reads the flag at start only: there the function leaves it, and says so.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compileWasmBaselineOnly, wasmTierSettableAtRunTime } from '../src/wasm-tier.js';

const moduleURL = new URL('../src/wasm-tier.ts', import.meta.url).href;
const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * How much V8's peak malloced memory (MiB) grew while a node process made requests of 100 KB with undici (from
 * after its imports and server start), and how many it made: until it grew by `until` MiB or 20,000 requests were
 * made (TurboFan compiles on a worker thread: when it is done depends on the machine's load, not on a count), and at
 * least `atLeast`.
 */
async function mallocGrowth(baselineOnly: boolean, until: number, atLeast: number): Promise<{ mib: number; requests: number }> {
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
    const start = peak();
    let requests = 0;
    while (requests < ${atLeast} || (peak() - start < ${until} && requests < 20000)) {
      await (await request(url)).body.text();
      requests++;
    }
    server.close();
    process.stdout.write(JSON.stringify({ mib: peak() - start, requests }));`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => { child.once('error', reject); child.once('close', resolve); });
  expect(code).toBe(0);
  return JSON.parse(out) as { mib: number; requests: number };
}

describe('compileWasmBaselineOnly', () => {
  it("keeps undici's parser on Liftoff where V8 takes the flag at run time: V8 mallocs next to nothing, not a TurboFan compilation's 10-36 MiB", async () => {
    if (!wasmTierSettableAtRunTime()) {
      // Node 24: V8 13 reads it at start only, so the function must not claim it set it.
      expect(compileWasmBaselineOnly([])).toBe(false);
      return;
    }
    // Without it, requests go on until TurboFan's compilation shows (Node 20: +35 MiB, Node 22: +13 MiB, within a
    // hundred requests on a quiet machine); with it, as many requests and at least 800.
    const withTurbofan = await mallocGrowth(false, 8, 0);
    expect(withTurbofan.mib).toBeGreaterThan(8);
    const baseline = await mallocGrowth(true, 0, Math.min(20_000, Math.max(800, withTurbofan.requests)));
    expect(baseline.mib).toBeLessThan(withTurbofan.mib / 2);
  }, 120_000);

  it('leaves a Liftoff or tier-up flag node was started with, and a V8 that reads the flag at start only', () => {
    expect(compileWasmBaselineOnly(['--no-liftoff-only'])).toBe(false);
    expect(compileWasmBaselineOnly(['--wasm-dynamic-tiering'])).toBe(false);
    expect(compileWasmBaselineOnly([], '13.6.233.17-node.37')).toBe(false);
    expect(wasmTierSettableAtRunTime('11.3.244.8-node.33')).toBe(true);
    expect(wasmTierSettableAtRunTime('12.4.254.21-node.33')).toBe(true);
    expect(wasmTierSettableAtRunTime('13.6.233.17-node.37')).toBe(false);
  });
});
