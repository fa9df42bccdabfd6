// A row SQLite itself refuses while the sink writes it, for a reason the sink's value checks cannot foresee (a
// trigger's RAISE, a CHECK, NOT NULL or UNIQUE the user gave the table, a foreign key refusing a removal): the
// driver's error becomes a SinkError naming the table, the column or the constraint, SQLite's message and result
// code, and the row's key. Rows are written one at a time, so the row being written is the refused one. The two
// drivers tell the code differently (better-sqlite3: `code: 'SQLITE_CONSTRAINT_CHECK'`; node:sqlite: `code:
// 'ERR_SQLITE_ERROR'` with the extended result code as the number `errcode` and its text as `errstr`): both
// become SQLite's own name of the code.
import type { Column } from '../columns.js';
import { RefusedRow, recordKey } from './refused-row.js';

/** SQLite's extended result codes of a refused constraint (https://sqlite.org/rescode.html), by number. */
const CONSTRAINTS: Readonly<Record<number, string>> = {
  275: 'CHECK', 531: 'COMMITHOOK', 787: 'FOREIGNKEY', 1043: 'FUNCTION', 1299: 'NOTNULL', 1555: 'PRIMARYKEY', 1811: 'TRIGGER',
  2067: 'UNIQUE', 2323: 'VTAB', 2579: 'ROWID', 2835: 'PINNED', 3091: 'DATATYPE',
};

/** SQLite's primary result codes, by number (the low 8 bits of an extended code). */
const PRIMARY = ['OK', 'ERROR', 'INTERNAL', 'PERM', 'ABORT', 'BUSY', 'LOCKED', 'NOMEM', 'READONLY', 'INTERRUPT', 'IOERR', 'CORRUPT', 'NOTFOUND',
  'FULL', 'CANTOPEN', 'PROTOCOL', 'EMPTY', 'SCHEMA', 'TOOBIG', 'CONSTRAINT', 'MISMATCH', 'MISUSE', 'NOLFS', 'AUTH', 'FORMAT', 'RANGE', 'NOTADB'];

/** The result code SQLite gave `error` (`SQLITE_CONSTRAINT_CHECK`), whichever driver threw it; undefined when SQLite did not. */
export function sqliteCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const { code, errcode } = error as { code?: unknown; errcode?: unknown };
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  if (code !== 'ERR_SQLITE_ERROR' || typeof errcode !== 'number') return undefined;
  const constraint = CONSTRAINTS[errcode];
  if (constraint !== undefined) return `SQLITE_CONSTRAINT_${constraint}`;
  const primary = PRIMARY[errcode & 0xff];
  return primary === undefined ? `SQLite result code ${errcode}` : `SQLITE_${primary}${errcode > 0xff ? ` (extended code ${errcode})` : ''}`;
}

/** A refusal of the row's values (a constraint or a trigger's RAISE, a value too big), not of the database as a whole. */
const refusesValues = (code: string): boolean => /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH)/.test(code);

/** The columns or the constraint SQLite's message names (`UNIQUE constraint failed: t.Name`, `CHECK constraint failed: qty_small`). */
function named(message: string, table: string, columns: readonly Column[]): string {
  const column = (qualified: string): string => {
    const name = qualified.startsWith(`${table}.`) ? qualified.slice(table.length + 1) : qualified.replace(/^[^.]*\./, '');
    const c = columns.find((k) => k.name === name);
    return `column ${name}${c ? ` (${c.edmType})` : ''}`;
  };
  const check = /^CHECK constraint failed: (.+)$/s.exec(message);
  if (check) return `constraint ${check[1]!.slice(0, 200)}`;
  const unique = /^(?:UNIQUE|NOT NULL|PRIMARY KEY) constraint failed: (.+)$/s.exec(message);
  if (unique) return /^index /.test(unique[1]!) ? unique[1]! : unique[1]!.split(', ').map(column).join(', ');
  const datatype = /^cannot store \w+ value in \w+ column (.+)$/s.exec(message);
  return datatype ? column(datatype[1]!) : '';
}

/**
 * The SinkError of `error`, thrown while writing `row` (values in `columns` order; key values of a `removal`) into
 * `table`, or preparing the statement (no row): `value` for a row's refused constraint or trigger, else `target` (a
 * full disk, a read-only file, a trigger SQLite cannot compile). Any error
 * SQLite did not give is returned as it is. The message keeps SQLite's own text (a trigger's RAISE text as the user
 * wrote it) and result code; SQLite's errors hold no path or URL.
 */
export function sqliteRefusal(error: unknown, table: string, columns: readonly Column[], row: readonly unknown[] | undefined, removal = false): unknown {
  const code = sqliteCode(error);
  if (code === undefined) return error;
  const { message } = error as Error;
  const what = named(message, table, columns);
  return new RefusedRow(`SQLite refused ${row === undefined ? 'the writes into' : 'a row of'} table ${table}${what ? ` (${what})` : ''}: ${message} (${code})`,
    row !== undefined && refusesValues(code) ? 'value' : 'target', recordKey(columns, row, removal), error as Error);
}
