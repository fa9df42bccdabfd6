// The changes of one delta page applied batch by batch as they arrive (inside the page's transaction): runs of
// upserts and runs of deletes in the page's order, each batch's part of a run written at the batch's end (into
// PostgreSQL: each row's COPY text made as its record comes, in one reused array, and sent at the batch's end), and
// counted as applyChanges counts a whole page: a key changed twice within a run of one kind is one row and
// counted once (its last values win), whatever batches the run spans.
import type { DeltaChange } from '@sluice/odata';
import { keyId, type Applied, type RowMaker } from './apply.js';
import type { PgRun } from './pg-run.js';
import { PostgresTarget } from './postgres.js';
import type { SqlTarget } from './sql-target.js';

/** One page's changes applied batch by batch; {@link end} gives the page's counts. */
export class PageChanges {
  private kind: 'upsert' | 'delete' | undefined;
  /** The keys of the run under way (over every batch it spans so far): its count when it ends. */
  private keys = new Set<unknown>();
  private readonly counts: Applied = { upserted: 0, deleted: 0 };
  /**
   * PostgreSQL: the run's one COPY, fed batch by batch and ended with the run. A key upserted again in the run ends
   * it early (a COPY or an `ON CONFLICT DO UPDATE` takes a key once) and a new one goes on.
   */
  private pg: PgRun | undefined;

  constructor(private readonly target: SqlTarget, private readonly table: string, private readonly rows: RowMaker) {}

  /** Applies one batch of changes in order; links are not rows and are skipped. */
  async add(changes: readonly DeltaChange<unknown>[]): Promise<void> {
    if (this.target instanceof PostgresTarget) return await this.copyChanges(this.target, changes);
    let upserts = new Map<unknown, unknown[]>();
    let deletes = new Map<unknown, unknown[]>();
    for (const change of changes) {
      if (change.kind === 'entity') {
        if (this.kind !== 'upsert') {
          await this.writeDeletes(deletes);
          deletes = new Map();
          await this.endRun('upsert');
        }
        const row = this.rows.row(change.value as Record<string, unknown>);
        const key = this.rows.keyIdOfRow(row);
        this.put(key, row, upserts);
      } else if (change.kind === 'removed') {
        if (this.kind !== 'delete') {
          await this.writeUpserts(upserts);
          upserts = new Map();
          await this.endRun('delete');
        }
        const key = this.rows.keyOfRemoval(change.id, change.key);
        const id = keyId(key);
        deletes.set(id, key);
        this.keys.add(id);
      }
    }
    await this.writeUpserts(upserts);
    await this.writeDeletes(deletes);
  }

  /** Upserts one batch of records (a snapshot's: no removals), as {@link add} does entity changes. */
  async addRecords(records: readonly unknown[]): Promise<void> {
    if (this.kind !== 'upsert') await this.endRun('upsert');
    if (this.target instanceof PostgresTarget) return await this.copyRecords(this.target, records);
    const upserts = new Map<unknown, unknown[]>();
    for (let i = 0; i < records.length; i++) {
      const row = this.rows.row(records[i] as Record<string, unknown>);
      const key = this.rows.keyIdOfRow(row);
      this.put(key, row, upserts);
    }
    await this.writeUpserts(upserts);
  }

  /**
   * PostgreSQL: each record's row made in one reused array and its COPY text added to the run at once, the batch's
   * text sent at its end (no array, map entry or closure per record). A key met again in the run (a record sent
   * twice, a page read again after a broken body) ends the run before it (COPY takes a key once); the new run's
   * row wins, as the last values of a key do.
   */
  private async copyRecords(target: PostgresTarget, records: readonly unknown[]): Promise<void> {
    const { rows, keys } = this;
    const row = rows.scratch;
    try {
      let pg = (this.pg ??= target.openRun(this.table, rows.columns, 'upsert'));
      for (let i = 0; i < records.length; i++) {
        rows.fill(records[i] as Record<string, unknown>, row);
        const key = rows.keyIdOfRow(row);
        if (keys.has(key)) {
          await pg.send();
          await this.endPg();
          pg = this.pg = target.openRun(this.table, rows.columns, 'upsert');
        }
        pg.put(row);
        keys.add(key);
      }
      await pg.send();
    } catch (error) {
      throw rows.named(error);
    }
  }

  /**
   * PostgreSQL: {@link add}, each change's row (or removed key) written into the run's COPY text as it comes, in
   * one reused array, and the batch's text sent at its end. A key upserted again in the run ends the run before it;
   * a key removed again in the run is written once.
   */
  private async copyChanges(target: PostgresTarget, changes: readonly DeltaChange<unknown>[]): Promise<void> {
    const rows = this.rows;
    const row = rows.scratch;
    let pg = this.pg;
    try {
      for (const change of changes) {
        if (change.kind === 'entity') {
          if (this.kind !== 'upsert') {
            await pg?.send();
            await this.endRun('upsert');
            pg = undefined;
          }
          rows.fill(change.value as Record<string, unknown>, row);
          const key = rows.keyIdOfRow(row);
          if (this.keys.has(key)) {
            await pg?.send();
            await this.endPg();
            pg = undefined;
          }
          pg = this.pg ??= target.openRun(this.table, rows.columns, 'upsert');
          pg.put(row);
          this.keys.add(key);
        } else if (change.kind === 'removed') {
          if (this.kind !== 'delete') {
            await pg?.send();
            await this.endRun('delete');
            pg = undefined;
          }
          const key = rows.keyOfRemoval(change.id, change.key);
          const id = keyId(key);
          if (this.keys.has(id)) continue;
          pg = this.pg ??= target.openRun(this.table, rows.keyColumns, 'remove');
          pg.put(key);
          this.keys.add(id);
        }
      }
      await pg?.send();
    } catch (error) {
      throw rows.named(error);
    }
  }

  /** A row into the batch's `upserts` (a key again replaces its row: the last values win), counted in the run. */
  private put(key: unknown, row: unknown[], upserts: Map<unknown, unknown[]>): void {
    upserts.delete(key);
    upserts.set(key, row);
    this.keys.add(key);
  }

  /** The page's counts: every run ended. */
  async end(): Promise<Applied> {
    await this.endRun(undefined);
    return this.counts;
  }

  /** Ends the PostgreSQL run under way, if any. */
  private async endPg(): Promise<void> {
    const pg = this.pg;
    this.pg = undefined;
    await pg?.end().catch((error: unknown) => { throw this.rows.named(error); });
  }

  /** Counts the run under way and starts a run of `kind`. */
  private async endRun(kind: 'upsert' | 'delete' | undefined): Promise<void> {
    await this.endPg();
    if (this.kind === 'upsert') this.counts.upserted += this.keys.size;
    else if (this.kind === 'delete') this.counts.deleted += this.keys.size;
    if (this.kind !== undefined) this.keys = new Set();
    this.kind = kind;
  }

  private async writeUpserts(upserts: Map<unknown, unknown[]>): Promise<void> {
    if (upserts.size === 0) return;
    try {
      await this.target.upsert(this.table, this.rows.columns, [...upserts.values()]);
    } catch (error) {
      throw this.rows.named(error);
    }
  }

  private async writeDeletes(deletes: Map<unknown, unknown[]>): Promise<void> {
    if (deletes.size === 0) return;
    try {
      await this.target.remove(this.table, this.rows.keyColumns, [...deletes.values()]);
    } catch (error) {
      throw this.rows.named(error);
    }
  }
}

/**
 * Applies one whole page of changes in order (inside the caller's transaction): a {@link PageChanges} given the
 * page as one batch. Returns the page's counts.
 */
export async function applyChanges(target: SqlTarget, table: string, rows: RowMaker, changes: readonly DeltaChange<unknown>[]): Promise<Applied> {
  const page = new PageChanges(target, table, rows);
  await page.add(changes);
  return await page.end();
}
