// A test hook, not a feature: SLUICE_SYNC_KILL_AT=<step>:<n> makes the process SIGKILL itself the n-th time a
// sync reaches <step> (counted per process), so the tests can kill it inside a page's commit sequence, where a kill
// timed from outside cannot land (SQLite commits in microseconds). The variable is read once, when this module
// loads; unset, each step costs one comparison. Only the environment of the process sets it: nothing a service
// sends can. The steps, in the order a page meets them:
//   copying        PostgreSQL: half of a batch's COPY text sent, the rest not (the server holds a partial COPY)
//   batch-written  a batch of a page written as it arrived (PostgreSQL: sent into the page's COPY), the page not ended
//   rows-written   a page's rows applied, its run state not yet written, not committed
//   swapped        the staging table renamed over the table (last page of a load or reload; a snapshot's swap), not committed
//   state-written  the run state (link to resume from) written, not committed
//   committed      the page's transaction committed, the next page not yet read
//   before-swap    a snapshot's pages all committed into the staging table, the swap's transaction not begun
import { SinkError } from '../errors.js';

/** A point of a sync's commit sequence where the test hook can kill the process. */
export type KillStep = 'copying' | 'batch-written' | 'rows-written' | 'swapped' | 'state-written' | 'committed' | 'before-swap';

const STEPS: readonly string[] = ['copying', 'rows-written', 'swapped', 'state-written', 'committed', 'before-swap', 'batch-written'] satisfies readonly KillStep[];

interface KillPlan { readonly step: string; readonly n: number; reached: number }

function planOf(text: string | undefined): KillPlan | SinkError | undefined {
  if (text === undefined || text === '') return undefined;
  const m = /^([a-z-]+):([1-9]\d{0,5})$/.exec(text);
  if (m === null || !STEPS.includes(m[1]!)) {
    return new SinkError(`SLUICE_SYNC_KILL_AT (a test hook) must be <step>:<n> with a step of ${STEPS.join(', ')} and n from 1, got ${JSON.stringify(text.slice(0, 40))}`, 'target');
  }
  return { step: m[1]!, n: Number(m[2]), reached: 0 };
}

const plan = planOf(process.env['SLUICE_SYNC_KILL_AT']);

/** True when the test hook is set (a malformed value is thrown by {@link checkKillPlan}). */
export const killPlanned = plan !== undefined;

/** Throws the SinkError of a malformed SLUICE_SYNC_KILL_AT before anything moves (a typo must not pass as "never reached"). */
export function checkKillPlan(): void {
  if (plan instanceof SinkError) throw plan;
}

/** Called at `step`; SIGKILLs this process the n-th time the planned step is reached. Callers test {@link killPlanned} first. */
export function reached(step: KillStep): void {
  if (plan === undefined || plan instanceof SinkError || plan.step !== step) return;
  if (++plan.reached === plan.n) process.kill(process.pid, 'SIGKILL');
}
