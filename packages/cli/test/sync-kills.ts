// `sluice sync` runs SIGKILLed at random points of a first load and of delta reads, then run again. The points come
// from a seeded PRNG: the seed is in the test's title and in a failure's message, and SLUICE_KILL_SEED=<seed> repeats
// them. A point is the n-th page request of a run and a moment: as the request arrives (before it is served), or a
// random delay after it (while the page is parsed, written, committed, or while the run waits for its next page: every
// later request is held until the kill, so the kill always lands before the next page is served).
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { change, isDeltaPage, isFullRead, isLoadPage, type SyncKit } from './sync-helpers.js';

function seedFrom(text: string | undefined): number {
  if (text === undefined || text === '') return Math.floor(Math.random() * 2 ** 32);
  const seed = Number(text);
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32) throw new Error(`SLUICE_KILL_SEED must be an integer from 0 to 4294967295, got ${text}`);
  return seed;
}

/** The seed of this process's kill points: SLUICE_KILL_SEED when set, else a new one. */
export const KILL_SEED = seedFrom(process.env['SLUICE_KILL_SEED']);

/** mulberry32: a small seeded PRNG, uniform in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Where a run is killed: at the `page`-th request `isPage` matches, `delayMs` after it arrived (undefined: on arrival). */
interface KillPoint { page: number; delayMs: number | undefined }

/** A point at a page from `min` to `max`: on arrival (a quarter of the points) or 0-40 ms after, small delays likelier. */
function pointIn(rnd: () => number, min: number, max: number): KillPoint {
  const page = min + Math.floor(rnd() * (max - min + 1));
  return { page, delayMs: rnd() < 0.25 ? undefined : Math.floor(rnd() ** 2 * 40) };
}

const shown = (p: KillPoint): string => `page ${p.page} ${p.delayMs === undefined ? 'on arrival' : `+${p.delayMs} ms`}`;

/** Runs `args` and SIGKILLs it at `point`; resolves with how it ended (null: it exited first). */
async function killAt(kit: SyncKit, args: string[], isPage: (req: IncomingMessage) => boolean, point: KillPoint): Promise<NodeJS.Signals | null> {
  let child: ChildProcess | undefined;
  let pages = 0;
  let armed = false;
  let timer: NodeJS.Timeout | undefined;
  let release!: () => void;
  const killed = new Promise<void>((resolve) => { release = resolve; });
  const kill = (): void => {
    child?.kill('SIGKILL');
    release();
  };
  kit.hook = (req) => {
    if (armed) return killed;
    if (!isPage(req) || ++pages !== point.page) return undefined;
    armed = true;
    if (point.delayMs === undefined) kill();
    else timer = setTimeout(kill, point.delayMs);
    return undefined;
  };
  try {
    child = kit.cli().spawn(args);
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal;
  } finally {
    clearTimeout(timer);
    release();
    kit.hook = undefined;
  }
}

/** Runs `args` to the end; throws with its stderr when it fails. Resolves with the URL of its first read of Orders. */
async function cleanRun(kit: SyncKit, args: string[]): Promise<string | undefined> {
  const before = kit.srv().requests.length;
  const run = await kit.cli().run(args);
  if (run.code !== 0) throw new Error(`sync failed: ${run.stderr}`);
  return kit.srv().requests.slice(before).find((r) => /\/Orders/.test(r.url))?.url;
}

/** The target of a test file: the sync arguments for a table, and the check that the table equals the service. */
export interface KillTarget {
  args(table: string): string[];
  /** Asserts the table equals the service (every key once, values equal) and no staging table is left. */
  check(table: string): Promise<void>;
}

/** A request of a load: $metadata (page 1), then the full read's pages. */
const isLoadRequest = (req: IncomingMessage): boolean => /\$metadata/.test(req.url ?? '') || isFullRead(req) || isLoadPage(req);

/**
 * With 18 orders paged one a page: table `a` is killed at $metadata, then three times in a row at random load points
 * (the last at its 3rd page request or later, so a page was committed), orders change, and the next run resumes the
 * load from a next link; tables `b` and `c` are killed once each at a random load point, then loaded to the end. On
 * `a`, after nine changes: one random delta point, more changes, a run to the end; nine changes, two random points in a
 * row, a run to the end. `target.check` follows every run to the end. Resolves with the tables it made.
 */
export async function killAtRandom(kit: SyncKit, target: KillTarget, seed = KILL_SEED): Promise<string[]> {
  const rnd = prng(seed);
  const trail: string[] = [];
  const killed = async (table: string, isPage: (req: IncomingMessage) => boolean, point: KillPoint, what: string): Promise<void> => {
    trail.push(`${table} ${what} ${shown(point)}`);
    const signal = await killAt(kit, target.args(table), isPage, point);
    if (signal !== 'SIGKILL') throw new Error(`not killed at ${what} ${shown(point)} (ended with ${signal})`);
  };
  try {
    for (let i = 0; i < 18; i++) await kit.od().from('Orders').create({ Customer: `start-${i}`, Amount: '10.50', Quantity: '9007199254740993' });
    await killed('a', isLoadRequest, { page: 1, delayMs: undefined }, 'load');
    const writes = kit.srv().writes!;
    writes.fullReadPageSize = 1;
    try {
      for (const [min, max] of [[1, 4], [1, 4], [4, 6]] as const) await killed('a', isLoadRequest, pointIn(rnd, min, max), 'load');
      // Changes during the load: the first order updated, the second deleted, one created.
      const [first, second] = [...writes.store.orders.keys()].sort((a, b) => a - b);
      await kit.od().from('Orders').key(first!).update({ Status: 'during' }, { etag: '*' });
      await kit.od().from('Orders').key(second!).delete({ etag: '*' });
      await kit.od().from('Orders').create({ Customer: 'during-load', Amount: '1.00', Quantity: '9007199254740995' });
      const resumedFrom = await cleanRun(kit, target.args('a'));
      if (!/skiptoken=track-/.test(decodeURIComponent(resumedFrom ?? ''))) throw new Error(`the load did not resume from a next link but read ${resumedFrom}`);
      await cleanRun(kit, target.args('a')); // the delta read brings the changes made during the load
      await target.check('a');
      for (const table of ['b', 'c']) {
        await killed(table, isLoadRequest, pointIn(rnd, 1, 9), 'load');
        await cleanRun(kit, target.args(table));
        await target.check(table);
      }
    } finally {
      writes.fullReadPageSize = undefined;
    }
    await change(kit, 'first');
    await killed('a', isDeltaPage, pointIn(rnd, 1, 3), 'delta');
    await change(kit, 'meanwhile');
    await cleanRun(kit, target.args('a'));
    await target.check('a');
    await change(kit, 'second');
    for (let i = 0; i < 2; i++) await killed('a', isDeltaPage, pointIn(rnd, 1, 2), 'delta');
    await cleanRun(kit, target.args('a'));
    await target.check('a');
  } catch (e) {
    if (e instanceof Error) e.message += `\nkill points (seed ${seed}; SLUICE_KILL_SEED=${seed} repeats them): ${trail.join('; ')}`;
    throw e;
  }
  return ['a', 'b', 'c'];
}
