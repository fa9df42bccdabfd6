// V8's young generation for `sluice export` and `sluice sync`: held at the size it reaches at start-up. V8 doubles
// its semi-spaces (up to 16 MiB each on Node 20) once the bytes that survived scavenges since its last step exceed one
// semi-space. These commands reach 8 MiB semi-spaces at start-up; after that an export or a sync into PostgreSQL
// survived enough to take the next step somewhere before 1,000,000 records, and a sync into SQLite (about 5 MiB per
// 1,000,000 records) in some runs and not others, depending on how much of start-up survived after the last step.
// The step put about 20 MiB on the peak RSS, and on Node 20 a run of full collections after it (up to 30% more CPU).
// Held at 8 MiB, every run scavenges as at 100,000 records, for no more CPU (bench/RESULTS.md, issue 25).
// `SLUICE_YOUNG_GENERATION_MIB` sets another size, 0 leaves V8's own growth, and a young-generation flag given to
// node itself wins.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { UsageError } from './errors.js';

/** The environment variable that sets the semi-space size (MiB) at which `sluice export` and `sluice sync` hold V8's young generation; `0` leaves it to V8. */
export const YOUNG_GENERATION_ENV = 'SLUICE_YOUNG_GENERATION_MIB';

/** The semi-space size (MiB) `sluice export` and `sluice sync` hold V8's young generation at unless {@link YOUNG_GENERATION_ENV} says otherwise. */
export const DEFAULT_YOUNG_GENERATION_MIB = 8;

/** Node flags with which the user chose the young generation's sizing. */
const YOUNG_FLAGS = /^--(semi[-_]space[-_]growth[-_]factor|min[-_]semi[-_]space[-_]size|max[-_]semi[-_]space[-_]size)\b/;

/** A hold on the young generation's growth, once its semi-spaces have reached {@link YoungGenerationHold.mib}. */
export interface YoungGenerationHold {
  /** The semi-space size (MiB) held at. */
  readonly mib: number;
  /** Whether V8's semi-spaces reached it and their growth is stopped (for the rest of the process). */
  held(): boolean;
  /** Stops watching (the growth stays stopped if it was). */
  stop(): void;
}

/** One semi-space's size in bytes: half of what V8 holds for its new space. */
function semiSpaceBytes(): number {
  const space = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
  return space === undefined ? 0 : space.space_size / 2;
}

/** The semi-space size (MiB) to hold at from `SLUICE_YOUNG_GENERATION_MIB`: the default when unset, 0 for none; a `RangeError` naming the variable for anything but an integer from 0 to 1024. */
export function youngGenerationMiB(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[YOUNG_GENERATION_ENV];
  if (raw === undefined || raw === '') return DEFAULT_YOUNG_GENERATION_MIB;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) > 1024) {
    throw new RangeError(`${YOUNG_GENERATION_ENV} must be an integer from 0 to 1024 (MiB of a semi-space at which V8's young generation stops growing; 0 leaves it to V8), not ${JSON.stringify(raw)}`);
  }
  return Number(raw);
}

/**
 * Watches V8's collections and, once its semi-spaces have grown to `SLUICE_YOUNG_GENERATION_MIB` (default 8) or
 * more, sets `--semi-space-growth-factor=1` so that they grow no further in this process. Returns undefined, doing
 * nothing, for 0 or when node was started with `--semi-space-growth-factor`, `--min-semi-space-size` or
 * `--max-semi-space-size`; throws what {@link youngGenerationMiB} throws.
 */
export function holdYoungGeneration(env: NodeJS.ProcessEnv = process.env, execArgv: readonly string[] = process.execArgv): YoungGenerationHold | undefined {
  const mib = youngGenerationMiB(env);
  if (mib === 0 || execArgv.some((a) => YOUNG_FLAGS.test(a))) return undefined;
  let held = false;
  const observer = new PerformanceObserver(() => check());
  const check = (): void => {
    if (held || semiSpaceBytes() < mib * 2 ** 20) return;
    setFlagsFromString('--semi-space-growth-factor=1');
    held = true;
    observer.disconnect();
  };
  observer.observe({ entryTypes: ['gc'] });
  check();
  return { mib, held: () => held, stop: () => observer.disconnect() };
}

/**
 * Runs `work` with V8's young generation held ({@link holdYoungGeneration}): what `sluice export` and `sluice sync`
 * do, so that their peak RSS is the same whatever the set's size. A bad `SLUICE_YOUNG_GENERATION_MIB` is a
 * UsageError (exit 2) thrown before any work.
 */
export async function withYoungGenerationHeld<T>(work: () => Promise<T>, env: NodeJS.ProcessEnv = process.env): Promise<T> {
  let young: YoungGenerationHold | undefined;
  try {
    young = holdYoungGeneration(env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  try {
    return await work();
  } finally {
    young?.stop();
  }
}
