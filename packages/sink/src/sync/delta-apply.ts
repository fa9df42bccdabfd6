// The changes of one delta page applied batch by batch as they arrive (inside the page's transaction): runs of
// upserts and runs of deletes in the page's order, each batch's part of a run written at the batch's end, and
// counted as applyChanges counts a whole page: a key changed twice within a run of one kind is one row and
// counted once (its last values win), whatever batches the run spans.
import type { DeltaChange } from '@sluice/odata';
import { keyId, type Applied, type RowMaker } from './apply.js';
import type { SqlTarget } from './sql-target.js';

/** One page's changes applied batch by batch; {@link end} gives the page's counts. */
export class PageChanges {
  private kind: 'upsert' | 'delete' | undefined;
  /** The keys of the run under way (over every batch it spans so far): its count when it ends. */
  private keys = new Set<unknown>();
  private readonly counts: Applied = { upserted: 0, deleted: 0 };

  constructor(private readonly target: SqlTarget, private readonly table: string, private readonly rows: RowMaker) {}

  /** Applies one batch of changes in order; links are not rows and are skipped. */
  async add(changes: readonly DeltaChange<unknown>[]): Promise<void> {
    let upserts = new Map<unknown, unknown[]>();
    let deletes = new Map<unknown, unknown[]>();
    for (const change of changes) {
      if (change.kind === 'entity') {
        if (this.kind !== 'upsert') {
          await this.writeDeletes(deletes);
          deletes = new Map();
          this.endRun('upsert');
        }
        const row = this.rows.row(change.value as Record<string, unknown>);
        const key = this.rows.keyIdOfRow(row);
        upserts.delete(key);
        upserts.set(key, row);
        this.keys.add(key);
      } else if (change.kind === 'removed') {
        if (this.kind !== 'delete') {
          await this.writeUpserts(upserts);
          upserts = new Map();
          this.endRun('delete');
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

  /** The page's counts: every run ended. */
  end(): Applied {
    this.endRun(undefined);
    return this.counts;
  }

  /** Counts the run under way and starts a run of `kind`. */
  private endRun(kind: 'upsert' | 'delete' | undefined): void {
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
  return page.end();
}
