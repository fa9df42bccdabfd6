// V8's growth of the old generation for the `sluice` process, on request. After a full collection V8 lets the old
// generation grow to about 3.5 times what survived before it collects again; a streaming command that promotes a
// little garbage with every page climbs for the first million records or two and then stays there (an NDJSON export
// no longer does, since its scanner and text buffers stopped keeping body chunks and buffers alive: bench/RESULTS.md).
// `SLUICE_HEAP_GROWING_PERCENT=100` (doubling) lowers that plateau by 10-20 MiB for more full collections; on a quiet
// machine that cost 3-7% of the CPU of a 1M-record export (bench/RESULTS.md), so V8's own sizing is the default.
import { setFlagsFromString } from 'node:v8';

/** The environment variable that sets the old generation's growth past what survived the last full collection. */
export const HEAP_GROWING_ENV = 'SLUICE_HEAP_GROWING_PERCENT';

/**
 * Sets V8's `--heap-growing-percent` for this process from `SLUICE_HEAP_GROWING_PERCENT` (an integer from 1 to
 * 1000), unless node was started with one (`node --heap-growing-percent=… sluice.mjs …` wins). Returns the percent
 * it set, or undefined; throws a `RangeError` naming the variable for a value that is not such an integer.
 */
export function boundHeapGrowth(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): number | undefined {
  const raw = env[HEAP_GROWING_ENV];
  if (raw === undefined || raw === '') return undefined;
  const percent = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || percent < 1 || percent > 1000) {
    throw new RangeError(`${HEAP_GROWING_ENV} must be an integer from 1 to 1000 (percent of growth past what survived a full collection), not ${JSON.stringify(raw)}`);
  }
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return undefined;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
