// The `sluice` process's old-generation growth (src/heap.ts): V8's own unless SLUICE_HEAP_GROWING_PERCENT asks, and a
// --heap-growing-percent given to node wins. What it does to the peak RSS is measured by the sink bench
// (`BENCH_SINK_PARTS=rss npm run bench -- sink`).
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../src/heap.js';

describe('boundHeapGrowth', () => {
  it("leaves V8's own sizing when the variable is not set", () => {
    expect(boundHeapGrowth({}, [])).toBeUndefined();
    expect(boundHeapGrowth({ SLUICE_HEAP_GROWING_PERCENT: '' }, [])).toBeUndefined();
  });

  it('keeps a --heap-growing-percent node was started with, in either spelling', () => {
    expect(boundHeapGrowth({ SLUICE_HEAP_GROWING_PERCENT: '100' }, ['--heap-growing-percent=0'])).toBeUndefined();
    expect(boundHeapGrowth({ SLUICE_HEAP_GROWING_PERCENT: '100' }, ['--no-warnings', '--heap_growing_percent', '30'])).toBeUndefined();
  });

  it('sets the percent the variable names otherwise', () => {
    expect(boundHeapGrowth({ SLUICE_HEAP_GROWING_PERCENT: '100' }, ['--no-warnings'])).toBe(100);
  });

  it('refuses a value that is not an integer from 1 to 1000, naming the variable', () => {
    for (const bad of ['0', '1001', '50%', 'lots', '-5', '1e2']) {
      expect(() => boundHeapGrowth({ SLUICE_HEAP_GROWING_PERCENT: bad }, [])).toThrow(/SLUICE_HEAP_GROWING_PERCENT must be an integer from 1 to 1000/);
    }
  });
});
