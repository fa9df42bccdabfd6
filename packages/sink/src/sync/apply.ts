// One page of changes applied to a table: runs of upserts (the last change of a key wins) and runs of
// deletes, in the page's order.
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { keyOfRemovedId } from './keys.js';
import { RefusedRow } from './refused-row.js';
import type { SqlTarget } from './sql-target.js';
import type { SqliteTarget } from './sqlite.js';
import { sqlValue } from './sql-types.js';
import { numberText, recordOf, shownValue } from '../values.js';

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
  /** One row's array, for rows written at once (see {@link fill}). */
  readonly scratch: unknown[];

  /** `entitySet` names the set in the errors of its values. */
  constructor(target: SqlTarget, readonly columns: readonly Column[], private readonly entitySet?: string | undefined) {
    this.convert = columns.map((c) => sqlValue(target.dialect, c));
    this.keys = columns.filter((c) => c.key);
    this.keyConvert = this.keys.map((c) => sqlValue(target.dialect, c));
    this.keyIndex = this.keys.map((k) => columns.indexOf(k));
    this.scratch = columns.map(() => null);
  }

  get keyColumns(): readonly Column[] {
    return this.keys;
  }

  /** The row of a record; a missing or null value of a non-nullable column, or a value its column cannot hold, is a SinkError naming the record's key. */
  row(record: Readonly<Record<string, unknown>>): unknown[] {
    const row = new Array<unknown>(this.columns.length);
    this.fill(record, row);
    return row;
  }

  /** {@link row} written into `into` (reused from record to record: a row that is written at once needs no array of its own). */
  fill(record: Readonly<Record<string, unknown>>, into: unknown[]): void {
    const { columns, convert } = this;
    try {
      for (let i = 0; i < columns.length; i++) {
        const c = columns[i]!;
        const value = record[c.name];
        if (value === null || value === undefined) {
          if (!c.nullable) throw new SinkError(`column ${c.name} is not nullable, but a record has no value for it`, 'value');
          into[i] = null;
        } else {
          into[i] = convert[i]!(value);
        }
      }
    } catch (error) {
      if (!(error instanceof SinkError)) throw error;
      throw new SinkError(`${error.message} (${recordOf(this.entitySet, this.keys, record)})`, error.code, { cause: error });
    }
  }

  /** A row the database refused ({@link RefusedRow}) named with the entity set; any other error as it is. */
  named(error: unknown): unknown {
    if (!(error instanceof RefusedRow)) return error;
    const which = [this.entitySet === undefined ? '' : `entity set ${this.entitySet}`, error.record ?? ''].filter(Boolean).join(', ');
    return new SinkError(which === '' ? error.message : `${error.message} (${which})`, error.code, { cause: error.dbError });
  }

  /** What identifies the key of a row within a page (see {@link keyId}). */
  keyIdOfRow(row: readonly unknown[]): unknown {
    return this.keyIndex.length === 1 ? valueId(row[this.keyIndex[0]!]) : keyId(this.keyIndex.map((i) => row[i]));
  }

  /** The key values of a removed entity: its key properties when the service sent them (4.01), else read from its id. */
  keyOfRemoval(id: string, sent: Readonly<Record<string, unknown>> | undefined): unknown[] {
    const key = sent !== undefined && this.keys.every((k) => sent[k.name] !== undefined && sent[k.name] !== null) ? sent : keyOfRemovedId(id, this.keys.map((k) => k.name));
    try {
      return this.keys.map((k, i) => this.keyConvert[i]!(key[k.name]));
    } catch (error) {
      if (!(error instanceof SinkError)) throw error;
      const set = this.entitySet === undefined ? '' : `entity set ${this.entitySet}, `;
      throw new SinkError(`${error.message} (${set}the removal of ${shownValue(id)})`, error.code, { cause: error });
    }
  }
}

/** One value of a composite key as text: a number without V8's number-to-string cache ({@link numberText}), the same digits `String` gives. */
const keyPart = (v: unknown): string => (typeof v === 'number' ? numberText(v) : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : String(v));

/**
 * What identifies a key within a page. A single key value is its own map key (a bigint in the safe range as a
 * number, bytes as hex), so a page makes no string per record: `String(42)` would, and V8's number-to-string cache
 * keeps each such string alive for many pages, long enough to be promoted to the old generation and stay there
 * as garbage until a full collection (bench/RESULTS.md, issue 25). Two values are the same key exactly when their
 * `String` forms are, as with the text of a composite key: a column's converter gives one type per value.
 */
export function keyId(key: readonly unknown[]): unknown {
  return key.length === 1 ? valueId(key[0]) : key.map(keyPart).join('\u0000');
}

/** {@link keyId} of a single key value. */
function valueId(v: unknown): unknown {
  if (typeof v === 'bigint') return v >= MIN_SAFE && v <= MAX_SAFE ? Number(v) : v;
  return v instanceof Uint8Array ? keyPart(v) : v;
}
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Upserts one batch of a page's records into a SQLite `table` (inside the caller's transaction, which spans the
 * page) and adds their keys to `keys`, the page's: its size is the page's upserted count, a key sent twice in the
 * page counted once and holding its last values (as PageChanges counts). The records and rows are not kept:
 * each row is written as it is made, into one reused array, and nothing is left to wait for.
 */
export function upsertBatch(target: SqliteTarget, table: string, rows: RowMaker, records: readonly unknown[], keys: Set<unknown>): void {
  const write = target.upserter(table, rows.columns);
  const row = rows.scratch;
  try {
    for (let i = 0; i < records.length; i++) {
      rows.fill(records[i] as Record<string, unknown>, row);
      keys.add(rows.keyIdOfRow(row));
      write(row);
    }
  } catch (error) {
    throw rows.named(error);
  }
}
