// WebAssembly in the `sluice` process is compiled by V8's baseline compiler (Liftoff) only. The one module is
// undici's HTTP parser (llhttp): V8 re-compiles its hot parser function with TurboFan on a worker thread a second or
// two into a run, and that one compilation mallocs about 36 MiB of zone memory in the worker's glibc arena, which
// set the peak RSS of many runs whatever their size (bench/RESULTS.md). Liftoff's code parses HTTP with no CPU cost
// we could measure: the parser hands body bytes on in spans, it does not loop over them.
// V8 reads the flag when it is set at run time up to V8 12 (Node 20 and 22); V8 13 (Node 24) reads its WebAssembly
// tiering flags at start only, so there it takes `NODE_OPTIONS=--liftoff-only` (checked on Node 24.21: no run-time
// flag changed the tier-up).
import { setFlagsFromString } from 'node:v8';

/** Whether this V8 honours `--liftoff-only` set at run time (up to V8 12: Node 20 and 22). */
export function wasmTierSettableAtRunTime(v8Version: string = process.versions.v8): boolean {
  return Number(v8Version.split('.')[0]) <= 12;
}

/**
 * Sets V8's `--liftoff-only` for this process, unless node was started with a Liftoff or tier-up flag of its own
 * (`node --no-liftoff-only sluice.mjs …` wins) or this V8 reads it at start only ({@link wasmTierSettableAtRunTime}).
 * Call it before the first HTTP request. Returns whether it set it.
 */
export function compileWasmBaselineOnly(execArgv: readonly string[] = process.execArgv, v8Version: string = process.versions.v8): boolean {
  if (!wasmTierSettableAtRunTime(v8Version)) return false;
  if (execArgv.some((a) => /^--(no-)?(liftoff|wasm[-_]tier[-_]up|wasm[-_]dynamic[-_]tiering)/.test(a))) return false;
  setFlagsFromString('--liftoff-only');
  return true;
}
