// `sluice sync` runs SIGKILLed at random points of a first load, of delta reads, of a reload after a refused delta
// link and of a snapshot, then run again. The points come from a seeded PRNG: the seed is in the test's title and in a
// failure's message, and SLUICE_KILL_SEED=<seed> repeats them. A point is either timed from the test server (the n-th
// page request of a run, killed as it arrives or a random delay after it, every later request held until the kill),
// or a step inside the sink's commit sequence where the child kills itself (the test hook SLUICE_SYNC_KILL_AT of
// @sluice/sink: rows written but not committed, state written, committed, swapped, before the swap, mid-COPY), which a
// timed kill cannot hit when SQLite commits in microseconds. Each phase deals its steps from a shuffled deck, so every
// plan kills at least once with a page's rows written and not committed, during the load and on a delta read's last page.
// Upserts by key are idempotent, so the table cannot show a page applied twice: every run to the end is also checked
// against `sluice_sync`'s run counts (run_upserted + run_deleted, raised in each page's transaction), which must be
// exactly what the service sent once (completeRun).
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
interface ServerPoint { page: number; delayMs: number | undefined }
/** A step of the sink's commit sequence (SLUICE_SYNC_KILL_AT), the `n`-th time the run reaches it. */
interface StepPoint { step: KillStep; n: number }
type KillPoint = ServerPoint | StepPoint;
type KillStep = 'copying' | 'batch-written' | 'rows-written' | 'swapped' | 'state-written' | 'committed' | 'before-swap';
/** What a deck deals: a step, or `server` (a point timed from the server). */
type Card = KillStep | 'server';

/** A point at a page from `min` to `max`: on arrival (a quarter of the points) or 0-40 ms after, small delays likelier. */
function pointIn(rnd: () => number, min: number, max: number): ServerPoint {
  const page = min + Math.floor(rnd() * (max - min + 1));
  return { page, delayMs: rnd() < 0.25 ? undefined : Math.floor(rnd() ** 2 * 40) };
}

/** `card` as a point: a server point from `min` to `max`, or the step's `n`-th time from `min` to `max` (swaps happen once). */
function pointOf(rnd: () => number, card: Card, min: number, max: number): KillPoint {
  if (card === 'server') return pointIn(rnd, min, max);
  const once = card === 'swapped' || card === 'before-swap';
  return { step: card, n: once ? 1 : min + Math.floor(rnd() * (max - min + 1)) };
}

/** The cards in a seeded random order. */
function shuffled(rnd: () => number, cards: readonly Card[]): Card[] {
  const out = [...cards];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const pick = <T>(rnd: () => number, of: readonly T[]): T => of[Math.floor(rnd() * of.length)]!;

const shown = (p: KillPoint): string => ('step' in p ? `at ${p.step} #${p.n}` : `page ${p.page} ${p.delayMs === undefined ? 'on arrival' : `+${p.delayMs} ms`}`);

/** Runs `args` and SIGKILLs it at `point`; resolves with how it ended (null: it exited first). */
async function killAt(kit: SyncKit, args: string[], isPage: (req: IncomingMessage) => boolean, point: KillPoint): Promise<NodeJS.Signals | null> {
  if ('step' in point) {
    const child = kit.cli().spawn(args, { env: { ...process.env, SLUICE_SYNC_KILL_AT: `${point.step}:${point.n}` } });
    const [, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
    return signal;
  }
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

/** A table's row of `sluice_sync` as the kill tests read it. */
export interface RunRow {
  /** `run_upserted + run_deleted`: rows the run applied, counted in each page's transaction. */
  applied: number;
  resumeLink: string | undefined;
  /** Set while a delta read is under way (its next link). */
  nextLink: string | undefined;
}

/** The one row of `SELECT run_upserted, run_deleted, resume_link, next_link FROM sluice_sync WHERE table_name = ...`. */
export function runRow(rows: readonly Record<string, unknown>[]): RunRow {
  const [row] = rows;
  if (rows.length !== 1 || row === undefined) throw new Error(`sluice_sync has ${rows.length} rows for the table`);
  const text = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v));
  return { applied: Number(row['run_upserted']) + Number(row['run_deleted']), resumeLink: text(row['resume_link']), nextLink: text(row['next_link']) };
}

/** The target of a test file: the sync arguments for a table, and the check that the table equals the service. */
export interface KillTarget {
  /** PostgreSQL adds the mid-COPY step. */
  dialect: 'sqlite' | 'postgres';
  args(table: string): string[];
  /** Asserts the table equals the service (every key once, values equal) and no staging table is left. */
  check(table: string): Promise<void>;
  /** The table's row of `sluice_sync`. */
  state(table: string): Promise<RunRow>;
  /** The IDs in a table (a staging table), ascending. */
  ids(table: string): Promise<number[]>;
}

/** The changes a delta read from `link` brings: one per order changed since its token (the testkit's latest change of each). */
function deltaSize(kit: SyncKit, link: string | undefined): number {
  const token = /\$deltatoken=(\d+)/.exec(decodeURIComponent(link ?? ''));
  if (token === null) throw new Error(`no delta token in the kept link ${link}`);
  return new Set(kit.srv().writes!.store.changes.filter((c) => c.link === undefined && c.seq > Number(token[1])).map((c) => c.id)).size;
}

/**
 * Runs `args` to the end after a table's kills and checks what it applied, from `sluice_sync`'s run counts,
 * which each page's transaction raises with its rows: `expected` (a load or snapshot), or for a delta read
 * every change since the kept delta link once, plus what a killed read of it had applied (a delta read is
 * read again from its delta link after a kill: those pages are applied again by design).
 */
async function completeRun(kit: SyncKit, target: KillTarget, table: string, expected?: number, extra: string[] = []): Promise<string | undefined> {
  let want = expected;
  if (want === undefined) {
    const before = await target.state(table);
    want = (before.nextLink === undefined ? 0 : before.applied) + deltaSize(kit, before.resumeLink);
  }
  const read = await cleanRun(kit, [...target.args(table), ...extra]);
  const { applied } = await target.state(table);
  if (applied !== want) throw new Error(`table ${table}: the run applied ${applied} rows, expected ${want} (more: a page applied twice; fewer: a page lost)`);
  return read;
}

/** A request of a load: $metadata (page 1), then the full read's pages. */
const isLoadRequest = (req: IncomingMessage): boolean => /\$metadata/.test(req.url ?? '') || isFullRead(req) || isLoadPage(req);

/**
 * With 18 orders paged one a page: table `a` is killed at $metadata, then three times in a row at random load points
 * (the last after a page was committed), orders change, and the next run resumes the load
 * from a next link; tables `b` and `c` are killed once each at a random load point, then loaded to the end. On `a`,
 * after nine changes: one random delta point, more changes, a run to the end; nine changes, two random points in a
 * row, a run to the end. A snapshot table `s` is killed twice while it reloads, once at or just before its swap; then
 * `a`'s delta link is refused (410) and its reload killed twice, the second time at the swap or at a page's rows. The five
 * load points deal rows-written, state-written, committed, batch-written (PostgreSQL: it or mid-COPY) and server points
 * from a shuffled deck, the three delta points rows-written, another step and a server point. `target.check` follows every run to
 * the end. Resolves with the tables it made.
 */
export async function killAtRandom(kit: SyncKit, target: KillTarget, seed = KILL_SEED): Promise<string[]> {
  const rnd = prng(seed);
  const trail: string[] = [];
  const pg = target.dialect === 'postgres';
  // A page's changes are applied batch by batch as they arrive: `batch-written` is inside a page, before its end
  // (PostgreSQL: a batch sent into the page's COPY, as `copying` is, which halfway through a batch is PostgreSQL's alone).
  const steps: KillStep[] = pg ? ['state-written', 'committed', 'copying', 'batch-written'] : ['state-written', 'committed', 'batch-written'];
  const killed = async (table: string, isPage: (req: IncomingMessage) => boolean, point: KillPoint, what: string, extra: string[] = []): Promise<void> => {
    trail.push(`${table} ${what} ${shown(point)}`);
    const signal = await killAt(kit, [...target.args(table), ...extra], isPage, point);
    if (signal !== 'SIGKILL') throw new Error(`not killed at ${what} ${shown(point)} (ended with ${signal})`);
  };
  try {
    for (let i = 0; i < 18; i++) await kit.od().from('Orders').create({ Customer: `start-${i}`, Amount: '10.50', Quantity: '9007199254740993' });
    await killed('a', isLoadRequest, { page: 1, delayMs: undefined }, 'load');
    const writes = kit.srv().writes!;
    const loadDeck = shuffled(rnd, ['rows-written', 'state-written', 'committed', pg ? pick(rnd, ['copying', 'batch-written'] as const) : 'batch-written', 'server']);
    writes.fullReadPageSize = 1;
    try {
      // The last after a committed page: a server point from the 4th request on, a step from its 2nd time on.
      for (const last of [false, false, true]) {
        const card = loadDeck.pop()!;
        await killed('a', isLoadRequest, pointOf(rnd, card, last ? (card === 'server' ? 4 : 2) : 1, last ? (card === 'server' ? 6 : 4) : 4), 'load');
      }
      // Changes during the load: the first order updated, the second deleted, one created. The load resumes after
      // the last key it committed, so it applies once each what it holds and each order then left after that key.
      const staged = await target.ids('a__sluice_load');
      const [first, second] = [...writes.store.orders.keys()].sort((a, b) => a - b);
      await kit.od().from('Orders').key(first!).update({ Status: 'during' }, { etag: '*' });
      await kit.od().from('Orders').key(second!).delete({ etag: '*' });
      await kit.od().from('Orders').create({ Customer: 'during-load', Amount: '1.00', Quantity: '9007199254740995' });
      const lastStaged = staged.at(-1) ?? -Infinity;
      const resumedFrom = await completeRun(kit, target, 'a', staged.length + [...writes.store.orders.keys()].filter((id) => id > lastStaged).length);
      if (!/skiptoken=track-/.test(decodeURIComponent(resumedFrom ?? ''))) throw new Error(`the load did not resume from a next link but read ${resumedFrom}`);
      await completeRun(kit, target, 'a'); // the delta read brings the changes made during the load
      await target.check('a');
      for (const table of ['b', 'c']) {
        await killed(table, isLoadRequest, pointOf(rnd, loadDeck.pop()!, 1, 9), 'load');
        await completeRun(kit, target, table, writes.store.orders.size);
        await target.check(table);
      }
    } finally {
      writes.fullReadPageSize = undefined;
    }
    // Nine changes make five delta pages of two, each run reading them all again from the kept delta link: the
    // rows-written card is the last page's, whose commit carries the new delta link; other steps at any page, but
    // `committed` before the last (after it the read is complete: two kills in a row would find one page to kill in).
    const deltaDeck = shuffled(rnd, ['rows-written', pick(rnd, steps), 'server']);
    const deltaPoint = (card: Card, serverMax: number): KillPoint =>
      card === 'rows-written' ? { step: card, n: 5 } : pointOf(rnd, card, 1, card === 'server' ? serverMax : card === 'committed' ? 4 : 5);
    await change(kit, 'first');
    await killed('a', isDeltaPage, deltaPoint(deltaDeck.pop()!, 3), 'delta');
    await change(kit, 'meanwhile');
    await completeRun(kit, target, 'a');
    await target.check('a');
    await change(kit, 'second');
    for (let i = 0; i < 2; i++) await killed('a', isDeltaPage, deltaPoint(deltaDeck.pop()!, 2), 'delta');
    await completeRun(kit, target, 'a');
    await target.check('a');
    // A snapshot (one page): loaded, then killed while it reloads, at or before its swap and at another step.
    const snapshot = ['--mode', 'snapshot'];
    await cleanRun(kit, [...target.args('s'), ...snapshot]);
    await change(kit, 'fourth');
    for (const card of shuffled(rnd, [pick(rnd, ['swapped', 'before-swap'] as const), pick(rnd, ['rows-written', ...steps] as const)])) {
      await killed('s', () => false, pointOf(rnd, card, 1, 1), 'snapshot', snapshot);
    }
    await completeRun(kit, target, 's', writes.store.orders.size, snapshot);
    await target.check('s');
    // The kept delta link refused: a reload in pages of three, killed at its swap or a page's rows, and at another point.
    await change(kit, 'third');
    writes.store.expiredBefore = writes.store.seq;
    writes.fullReadPageSize = 3;
    try {
      // The swap or rows second: the first kill leaves at least six pages, so any point of the second is reached.
      for (const card of [pick(rnd, [...steps, 'server'] as const), pick(rnd, ['swapped', 'rows-written'] as const)]) {
        await killed('a', isLoadRequest, pointOf(rnd, card, 1, 3), 'reload');
      }
      await completeRun(kit, target, 'a', writes.store.orders.size);
      await target.check('a');
    } finally {
      writes.fullReadPageSize = undefined;
      writes.store.expiredBefore = 0;
    }
  } catch (e) {
    if (e instanceof Error) e.message += `\nkill points (seed ${seed}; SLUICE_KILL_SEED=${seed} repeats them): ${trail.join('; ')}`;
    throw e;
  }
  return ['a', 'b', 'c', 's'];
}
