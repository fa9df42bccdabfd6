// One page of changes applied to a table: runs of upserts (the last change of a key wins) and runs of
// deletes, in the page's order.
import type { DeltaChange } from '@sluice/odata';
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { keyOfRemovedId } from './keys.js';
import type { SqlTarget } from './sql-target.js';
import { sqlValue } from './sql-types.js';

/** Counts of one page. */
export interface Applied {
  upserted: number;
  deleted: number;
}

/** Turns records and removal ids into rows of a table's columns, converted for its dialect. */
export class RowMaker {
  private readonly convert: ((value: unknown) => unknown)[];
  private readonly keys: Column[];
  private readonly keyConvert: ((value: unknown) => unknown)[];
  private readonly keyIndex: number[];

  constructor(target: SqlTarget, readonly columns: readonly Column[]) {
    this.convert = columns.map((c) => sqlValue(target.dialect, c));
    this.keys = columns.filter((c) => c.key);
    this.keyConvert = this.keys.map((c) => sqlValue(target.dialect, c));
    this.keyIndex = this.keys.map((k) => columns.indexOf(k));
  }

  get keyColumns(): readonly Column[] {
    return this.keys;
  }

  /** The row of a record; a missing or null value of a non-nullable column, or a value its column cannot hold, is a SinkError naming the record's key. */
  row(record: Readonly<Record<string, unknown>>): unknown[] {
    try {
      return this.columns.map((c, i) => {
        const value = record[c.name];
        if (value === null || value === undefined) {
          if (!c.nullable) throw new SinkError(`column ${c.name} is not nullable, but a record has no value for it`, 'value');
          return null;
        }
        return this.convert[i]!(value);
      });
    } catch (error) {
      if (!(error instanceof SinkError) || this.keys.length === 0) throw error;
      const key = this.keys.map((k) => `${k.name}=${JSON.stringify(record[k.name]) ?? 'undefined'}`).join(', ');
      throw new SinkError(`${error.message} (the record with key ${key})`, error.code, { cause: error });
    }
  }

  /** The key values of a row. */
  keyOfRow(row: readonly unknown[]): unknown[] {
    return this.keyIndex.map((i) => row[i]);
  }

  /** The key values of a removed entity: its key properties when the service sent them (4.01), else read from its id. */
  keyOfRemoval(id: string, sent: Readonly<Record<string, unknown>> | undefined): unknown[] {
    const key = sent !== undefined && this.keys.every((k) => sent[k.name] !== undefined && sent[k.name] !== null) ? sent : keyOfRemovedId(id, this.keys.map((k) => k.name));
    return this.keys.map((k, i) => this.keyConvert[i]!(key[k.name]));
  }
}

const keyText = (key: readonly unknown[]): string => key.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v))).join('\u0000');

/** Applies `changes` to `table` in order (inside the caller's transaction); links are not rows and are skipped. */
export async function applyChanges(target: SqlTarget, table: string, rows: RowMaker, changes: readonly DeltaChange<unknown>[]): Promise<Applied> {
  const counts: Applied = { upserted: 0, deleted: 0 };
  let upserts = new Map<string, unknown[]>();
  let deletes = new Map<string, unknown[]>();
  const flushUpserts = async (): Promise<void> => {
    if (upserts.size === 0) return;
    await target.upsert(table, rows.columns, [...upserts.values()]);
    counts.upserted += upserts.size;
    upserts = new Map();
  };
  const flushDeletes = async (): Promise<void> => {
    if (deletes.size === 0) return;
    await target.remove(table, rows.keyColumns, [...deletes.values()]);
    counts.deleted += deletes.size;
    deletes = new Map();
  };
  for (const change of changes) {
    if (change.kind === 'entity') {
      await flushDeletes();
      const row = rows.row(change.value as Record<string, unknown>);
      const key = keyText(rows.keyOfRow(row));
      upserts.delete(key);
      upserts.set(key, row);
    } else if (change.kind === 'removed') {
      await flushUpserts();
      const key = rows.keyOfRemoval(change.id, change.key);
      deletes.set(keyText(key), key);
    }
  }
  await flushUpserts();
  await flushDeletes();
  return counts;
}
