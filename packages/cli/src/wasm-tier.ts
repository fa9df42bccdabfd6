// WebAssembly in the `sluice` process is compiled by V8's baseline compiler (Liftoff) only. The one module is
// undici's HTTP parser (llhttp): V8 re-compiles its hot parser function with TurboFan on a worker thread a second or
// two into a run, and that one compilation mallocs about 36 MiB of zone memory in the worker's glibc arena, which
// set the peak RSS of many runs whatever their size (bench/RESULTS.md). Liftoff's code parses HTTP with no CPU cost
// we could measure: the parser hands body bytes on in spans, it does not loop over them.
import { setFlagsFromString } from 'node:v8';

/**
 * Sets V8's `--liftoff-only` for this process, unless node was started with a Liftoff or tier-up flag of its own
 * (`node --no-liftoff-only sluice.mjs …` wins). Call it before the first HTTP request. Returns whether it set it.
 */
export function compileWasmBaselineOnly(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => /^--(no-)?(liftoff|wasm[-_]tier[-_]up|wasm[-_]dynamic[-_]tiering)/.test(a))) return false;
  setFlagsFromString('--liftoff-only');
  return true;
}
