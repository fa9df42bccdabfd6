// syncEntitySet: keeps a table equal to an entity set. A load reads everything into a staging table that
// replaces the table in the transaction of its last page; a delta run applies each page's changes. Each
// page is committed with the link to resume from, so a process killed at any point resumes where the last
// commit left off and applies nothing twice.
import { DeltaExpiredError, DeltaSync, PageError, type DeltaPageEnd, type PageBatch, type Query, type ServiceMetadata } from '@sluice/odata';
import { columnsOf, entityTypeOf, type Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { RowMaker, upsertBatch, type Applied } from './apply.js';
import { PageChanges } from './delta-apply.js';
import { addedNotice, checkDrift } from './drift.js';
import { checkPartitionSettings, DEFAULT_PARALLEL, partitionBatches, planSnapshot } from './partitions.js';
import type { SqlTarget } from './sql-target.js';
import { SqliteTarget } from './sqlite.js';
import { ident, sqlType } from './sql-types.js';
import { countApplied, deleteState, ensureStateTable, readState, STATE_TABLE, writeState, type SyncState } from './state.js';
import { openTarget } from './target.js';
import { checkKillPlan, killPlanned, reached } from './kill-at.js';
import type { SyncOptions, SyncResult } from './sync-options.js';

const STAGING = '__sluice_load';

/** A change-tracking read into `into` (the table, or a load's staging table) from `link` (undefined: a full read). */
interface DeltaRead {
  readonly into: string;
  readonly link: string | undefined;
  readonly previous: SyncState | undefined;
  /** Into a staging table that replaces the table at the last page. */
  readonly loading: boolean;
  /** The read may end without a delta link (a first load in mode auto: then a snapshot). */
  readonly auto: boolean;
}

/** The last page of a read that has no delta link, where one is needed. */
function untracked(end: DeltaPageEnd, read: DeltaRead): boolean {
  return end.nextLink === undefined && end.deltaLink === undefined && !(read.auto && read.loading);
}

/** Thrown inside a page's transaction to roll it back when the read turns out {@link untracked}. */
class Untracked extends Error {}

function checkTable(table: string): void {
  if (table === '' || table.length > 40 || table.startsWith(STATE_TABLE) || table.endsWith(STAGING) || /[\0"]/.test(table)) {
    throw new SinkError(`table name ${JSON.stringify(table.slice(0, 60))} cannot be used (1-40 characters, no quote, not ${STATE_TABLE}*, not *${STAGING})`, 'target');
  }
}

/** A run under way: the target, the columns, the counts. */
class Run {
  upserted = 0;
  deleted = 0;
  pages = 0;
  readonly rows: RowMaker;
  constructor(readonly o: SyncOptions, readonly target: SqlTarget, readonly table: string, readonly columns: readonly Column[], readonly query: Query<unknown>, readonly started: string) {
    this.rows = new RowMaker(target, columns, this.o.entitySet);
  }

  state(over: Partial<SyncState> & Pick<SyncState, 'mode' | 'phase'>, previous: SyncState | undefined): SyncState {
    return {
      table: this.table, serviceURL: this.o.od.untyped.serviceURL, entitySet: this.o.entitySet, query: queryText(this.query), loadTable: undefined, resumeLink: undefined, nextLink: undefined,
      columns: this.columns, lastRun: this.started, upserted: (previous?.upserted ?? 0) + this.upserted, deleted: (previous?.deleted ?? 0) + this.deleted,
      runs: (previous?.runs ?? 0) + 1, ...over,
    };
  }

  progress(): void {
    this.pages++;
    this.o.onProgress?.({ upserted: this.upserted, deleted: this.deleted, pages: this.pages });
  }

  /** Starts a load: a fresh staging table and a state that says so, in one transaction. */
  async startLoad(mode: 'delta' | 'snapshot', previous: SyncState | undefined): Promise<string> {
    const staging = `${this.table}${STAGING}`;
    await this.target.transaction(async () => {
      await this.target.exec(`DROP TABLE IF EXISTS ${ident(staging)}`);
      await this.target.createTable(staging, this.columns);
      await writeState(this.target, this.state({ mode, phase: 'loading', loadTable: staging, runs: previous?.runs ?? 0, upserted: previous?.upserted ?? 0, deleted: previous?.deleted ?? 0 }, undefined));
      await countApplied(this.target, this.table, { upserted: 0, deleted: 0 }, true);
    });
    return staging;
  }

  /**
   * A change-tracking read from `link` (undefined: a full read) into `into`; each page is committed with the
   * link to resume from (a load's next link; a delta read's own delta link, see SyncState.resumeLink), and
   * the last page of a load swaps the staging table in. Resolves with the mode the
   * read ended in (`snapshot` when the service gave no delta link).
   */
  async delta(into: string, link: string | undefined, previous: SyncState | undefined, auto: boolean): Promise<'delta' | 'snapshot'> {
    const store = { load: () => Promise.resolve(link), save: () => Promise.resolve(), clear: () => Promise.resolve() };
    const sync = new DeltaSync(this.o.od, this.query, { store, ...(this.o.signal === undefined ? {} : { signal: this.o.signal }) });
    const loading = into !== this.table;
    // A delta read after a complete one is a new run; one read again after a kill goes on counting.
    const fresh = !loading && previous?.nextLink === undefined;
    return this.deltaBatches(sync, { into, link, previous, loading, auto }, fresh);
  }

  /**
   * The change-tracking read as it arrives: each batch of a page's changes is applied at once in the
   * page's transaction (opened at its first item, committed at its end with the page's counts and the link to
   * resume from), so a page's changes do not wait for its last one: they live as long as their batch.
   */
  private async deltaBatches(sync: DeltaSync<unknown>, page: DeltaRead, fresh: boolean): Promise<'delta' | 'snapshot'> {
    const read = sync.pageBatches();
    try {
      for (let item = await read.next(); !item.done; item = await read.next()) {
        let end: DeltaPageEnd | undefined;
        try {
          await this.target.transaction(async () => {
            const changes = new PageChanges(this.target, page.into, this.rows);
            for (; ; item = await read.next()) {
              if (item.done) throw new SinkError('the read ended inside a page', 'state');
              if (item.value.end !== undefined) break;
              await changes.add(item.value.changes);
              if (killPlanned) reached('batch-written');
            }
            end = item.value.end;
            // Rolls the page back: nothing of it is applied.
            if (untracked(end, page)) throw new Untracked();
            await this.endPage(page, end, await changes.end(), fresh);
            fresh = false;
          });
        } catch (error) {
          if (error instanceof Untracked) await this.refuseUntracked(page);
          throw error;
        }
        if (killPlanned) reached('committed');
        this.progress();
        if (end!.nextLink === undefined) return end!.deltaLink === undefined ? 'snapshot' : 'delta';
      }
    } finally {
      await read.return(undefined);
    }
    throw new SinkError('the change-tracking read ended without a last page', 'state');
  }

  /** The end of a page of a change-tracking read (in its transaction): its counts, the swap of a load's last page, the run state. */
  private async endPage(page: DeltaRead, end: DeltaPageEnd, applied: Applied, fresh: boolean): Promise<void> {
    const { into, link, previous, loading } = page;
    const last = end.nextLink === undefined;
    await countApplied(this.target, this.table, applied, fresh);
    this.upserted += applied.upserted;
    this.deleted += applied.deleted;
    if (killPlanned) reached('rows-written');
    if (last && loading) {
      await this.target.swap(into, this.table);
      if (killPlanned) reached('swapped');
    }
    const mode = last && end.deltaLink === undefined ? 'snapshot' : 'delta';
    await writeState(this.target, last
      ? this.state({ mode, phase: 'tracking', resumeLink: end.deltaLink }, previous)
      : loading ? this.state({ mode, phase: 'loading', loadTable: into, resumeLink: end.nextLink, runs: previous?.runs ?? 0 }, previous)
        : this.state({ mode, phase: 'tracking', resumeLink: link, nextLink: end.nextLink, runs: previous?.runs ?? 0 }, previous));
    if (killPlanned) reached('state-written');
  }

  /** The last page has no delta link, and the read may not end as a snapshot: nothing of the table changed, the staging table goes, the state is as before. */
  private async refuseUntracked({ into, previous, loading }: DeltaRead): Promise<never> {
    if (loading) {
      await this.target.transaction(async () => {
        await this.target.exec(`DROP TABLE IF EXISTS ${ident(into)}`);
        await (previous === undefined ? deleteState(this.target, this.table) : writeState(this.target, previous));
      });
    }
    throw new SinkError(`the service does not track changes of ${this.o.entitySet} (its last page has no delta link): use --mode snapshot`, 'mode');
  }

  /**
   * The snapshot's read as it arrives: each batch of a page's records is written into `staging` at once, in the
   * page's transaction (opened at its first item, committed at its end with the page's counts), so a page's
   * records do not wait for its last one: they live as long as their batch.
   */
  private async snapshotBatches(staging: string, batches: AsyncIterable<PageBatch<unknown>>): Promise<void> {
    const read = batches[Symbol.asyncIterator]();
    try {
      for (let item = await read.next(); !item.done; item = await read.next()) {
        // SQLite writes each row as it is made (upsertBatch); PostgreSQL feeds each batch into the page's COPY.
        const keys = new Set<unknown>();
        const sqlite = this.target instanceof SqliteTarget ? this.target : undefined;
        const changes = sqlite === undefined ? new PageChanges(this.target, staging, this.rows) : undefined;
        await this.target.transaction(async () => {
          for (; ; item = await read.next()) {
            if (item.done) throw new SinkError('the read ended inside a page', 'state');
            const { value, error, page } = item.value;
            if (page !== undefined) break;
            // A page whose body broke is read again after the records already written; any other error stops the run.
            if (error !== undefined) {
              if (error instanceof PageError && error.willRetry) continue;
              throw error;
            }
            if (sqlite !== undefined) upsertBatch(sqlite, staging, this.rows, value, keys);
            else await changes!.addRecords(value);
            if (killPlanned) reached('batch-written');
          }
          const applied = changes === undefined ? { upserted: keys.size, deleted: 0 } : await changes.end();
          await countApplied(this.target, this.table, applied);
          this.upserted += applied.upserted;
          if (killPlanned) reached('rows-written');
        });
        if (killPlanned) reached('committed');
        this.progress();
      }
    } finally {
      await read.return?.();
    }
  }

  /** Reads everything again into a new table that replaces the table when complete (a refused delta link, new columns). */
  async reload(previous: SyncState): Promise<'delta' | 'snapshot'> {
    const staging = await this.startLoad('delta', previous);
    return this.delta(staging, undefined, previous, true);
  }

  /**
   * A full read without change tracking into a staging table that replaces the table at the end; `batches`
   * (default: the query's own) may come from partitions read at once.
   */
  async snapshot(previous: SyncState | undefined, batches?: AsyncIterable<PageBatch<unknown>>): Promise<void> {
    const staging = await this.startLoad('snapshot', previous);
    await this.snapshotBatches(staging, batches ?? this.query.pageBatches(this.o.signal === undefined ? {} : { signal: this.o.signal }));
    if (killPlanned) reached('before-swap');
    await this.target.transaction(async () => {
      await this.target.swap(staging, this.table);
      if (killPlanned) reached('swapped');
      await writeState(this.target, this.state({ mode: 'snapshot', phase: 'tracking' }, previous));
      if (killPlanned) reached('state-written');
    });
    if (killPlanned) reached('committed');
  }
}

/** The query's URL without `$select` (columns are compared on their own), or undefined when it cannot be told yet. */
function queryText(query: Query<unknown>): string | undefined {
  let url: string;
  try {
    url = query.toURL();
  } catch {
    return undefined;
  }
  const [path, search = ''] = url.split(/\?(.*)/s);
  const kept = search.split('&').filter((part) => part !== '' && !part.startsWith('$select='));
  return kept.length ? `${path}?${kept.join('&')}` : path;
}

/** Checks a table that exists without sync state: it must have the columns and key the sync would create. */
async function checkShape(target: SqlTarget, table: string, columns: readonly Column[]): Promise<void> {
  const existing = await target.describe(table);
  if (existing === undefined) return;
  const want = columns.map((c) => `${c.name} ${sqlType(target.dialect, c).toLowerCase()}${c.key ? ' key' : ''}`).sort();
  const have = existing.map((c) => `${c.name} ${c.type}${c.key ? ' key' : ''}`).sort();
  const extra = have.filter((h) => !want.includes(h));
  const missing = want.filter((w) => !have.includes(w));
  if (extra.length || missing.length) {
    throw new SinkError(`table ${table} exists in ${target.name} with another shape (it has ${extra.join(', ') || 'nothing more'}; it lacks ${missing.join(', ') || 'nothing'}): drop it, choose another --table, or --rebuild to replace it`, 'shape');
  }
}

/**
 * Keeps a table in a SQLite or PostgreSQL database equal to an entity set: the first run loads everything
 * (into a staging table that replaces the table when complete), later runs apply the service's delta
 * (upserts by key, deletes of removed entities). Every page is committed together with the link to resume
 * from, in the target's own `sluice_sync` table; a refused delta link (410) reloads into a new table;
 * a set without change tracking is reloaded each run (`snapshot`), which `partitions` reads in `$filter` ranges,
 * `parallel` at once, into the same staging table (complete or nothing as well). Bad input (unknown target scheme,
 * unreachable database, a table of another shape, a `select` without the key, drift of a property's
 * type) is a {@link SinkError} before any row moves.
 *
 * @example
 * ```ts
 * import { syncEntitySet } from '@sluice/sink'
 *
 * const result = await syncEntitySet({ od, entitySet: 'Orders', into: 'sqlite:orders.db' })
 * console.log(`${result.run}: ${result.upserted} upserted, ${result.deleted} deleted`)
 * ```
 */
export async function syncEntitySet(options: SyncOptions): Promise<SyncResult> {
  const table = options.table ?? options.entitySet;
  checkTable(table);
  checkPartitionSettings(options);
  checkKillPlan();
  const target = typeof options.into === 'string' ? await openTarget(options.into) : options.into;
  try {
    await target.lock(table);
    await ensureStateTable(target);
    const od = options.od.untyped;
    const md: ServiceMetadata = await od.metadata(options.signal === undefined ? {} : { signal: options.signal });
    entityTypeOf(md, options.entitySet);
    const columns = columnsOf(md, options.entitySet, { select: options.select, requireKey: true });
    let query = options.query?.untyped ?? od.from(options.entitySet);
    if (options.query === undefined && options.select?.length) query = query.select(...options.select);
    let previous = await readState(target, table);
    if (previous !== undefined && (options.rebuild || (previous.phase === 'tracking' && (await target.describe(table)) === undefined))) {
      await target.transaction(() => deleteState(target, table));
      previous = undefined;
    } else if (previous === undefined && !options.rebuild) {
      await checkShape(target, table, columns);
    }
    const now = queryText(query);
    if (previous?.query !== undefined && now !== undefined && previous.query !== now) {
      throw new SinkError(`the query of table ${table} changed since it was synced (from ${previous.query} to ${now}): its rows would no longer match (--rebuild reloads)`, 'drift');
    }
    // New properties: a table tracked by delta is reloaded with them (see below), a load or snapshot has them.
    const added = previous === undefined ? [] : checkDrift(md, options.entitySet, previous, columns);
    const reloadFor = previous?.phase === 'tracking' && previous.mode === 'delta' && added.length > 0;
    const run = new Run(options, target, table, columns, query, new Date().toISOString());
    const result = (kind: SyncResult['run'], mode: SyncResult['mode']): SyncResult =>
      ({ table, target: target.name, run: kind, mode, upserted: run.upserted, deleted: run.deleted, pages: run.pages });

    if (added.length > 0 && !reloadFor) options.onNotice?.(addedNotice(added, options.entitySet, table, false));
    const mode = options.mode ?? 'auto';
    if (options.partitions !== undefined) {
      const plan = await planSnapshot(query, options, options.signal);
      if (plan.note !== undefined) options.onNotice?.(plan.note);
      await run.snapshot(previous, partitionBatches(query, plan, options.parallel ?? DEFAULT_PARALLEL, options.signal));
      return { ...result('snapshot', 'snapshot'), partitions: plan.partitions.length };
    }
    if (mode === 'snapshot' || (mode === 'auto' && previous?.mode === 'snapshot')) {
      await run.snapshot(previous);
      return result('snapshot', 'snapshot');
    }
    // A load under way resumes from its next link into its staging table; a complete table reads its delta link.
    if (previous === undefined || previous.phase === 'loading' || previous.resumeLink === undefined) {
      const sameColumns = JSON.stringify(previous?.columns) === JSON.stringify(columns);
      const resume = sameColumns && previous?.phase === 'loading' && previous.loadTable !== undefined && previous.resumeLink !== undefined && (await target.describe(previous.loadTable)) !== undefined;
      const into = resume ? previous!.loadTable! : await run.startLoad('delta', previous);
      const ended = await run.delta(into, resume ? previous!.resumeLink : undefined, previous, mode === 'auto');
      if (ended === 'snapshot') options.onNotice?.(`the service does not track changes of ${options.entitySet}: it was loaded as a snapshot, and each run reloads it (--mode snapshot)`);
      return result('load', ended);
    }
    if (reloadFor) {
      options.onNotice?.(addedNotice(added, options.entitySet, table, true));
      return result('reload', await run.reload(previous));
    }
    try {
      await run.delta(table, previous.resumeLink, previous, false);
      return result('delta', 'delta');
    } catch (error) {
      if (!(error instanceof DeltaExpiredError)) throw error;
      options.onNotice?.(`the service refused the kept delta link (HTTP ${error.status}): reloading ${options.entitySet} into a new table that replaces ${table} when complete`);
      return result('reload', await run.reload(previous));
    }
  } finally {
    await target.close();
  }
}
