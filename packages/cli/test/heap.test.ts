// The `sluice` process's old-generation growth (src/heap.ts): set unless node was started with its own. What it
// does to the peak RSS is measured by the sink bench (`BENCH_SINK_PARTS=rss npm run bench -- sink`).
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth } from '../src/heap.js';

describe('boundHeapGrowth', () => {
  it('keeps a --heap-growing-percent node was started with, in either spelling', () => {
    expect(boundHeapGrowth(['--heap-growing-percent=0'])).toBe(false);
    expect(boundHeapGrowth(['--no-warnings', '--heap_growing_percent', '30'])).toBe(false);
  });

  it('sets its own otherwise', () => {
    expect(boundHeapGrowth(['--no-warnings', '--max-old-space-size=512'])).toBe(true);
  });
});
