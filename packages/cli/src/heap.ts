// V8's growth of the old generation for the `sluice` process. After a full collection V8 lets the old generation
// grow to about 3.5 times what survived before it collects again; a streaming command promotes a little garbage
// with every page, so its resident set climbs for the first million records or two and then stays there. Doubling
// instead lowers that plateau by 10-20 MiB for a few more full collections (0.5-2% of the CPU of a million-record
// export or sync); growing by half would keep the peak nearer start-up's, for 3-4% (bench/RESULTS.md, "Peak RSS
// against the number of records").
import { setFlagsFromString } from 'node:v8';

/** The old generation's growth past what survived the last full collection, in percent. */
export const HEAP_GROWING_PERCENT = 100;

/**
 * Sets V8's `--heap-growing-percent` for this process, unless node was started with one (`node
 * --heap-growing-percent=0 sluice.mjs …` keeps V8's own sizing). Resolves to whether it set it.
 */
export function boundHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
