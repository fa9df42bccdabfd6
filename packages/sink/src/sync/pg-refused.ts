// A row PostgreSQL itself refuses, for a reason the sink's value checks cannot foresee (a CHECK, NOT NULL or
// UNIQUE the user added to the table, a column made narrower, a trigger raising an exception, a full disk): its
// error becomes a SinkError naming the table, the column or the constraint, PostgreSQL's message and SQLSTATE,
// and the refused row's key, which the caller completes with the entity set (RowMaker.named).
import type { Column } from '../columns.js';
import { RefusedRow, recordKey } from './refused-row.js';

/** What the `pg` driver's DatabaseError tells of a refusal (the fields used here). */
export interface PgDatabaseError extends Error {
  readonly code: string;
  readonly where?: string | undefined;
  readonly column?: string | undefined;
  readonly constraint?: string | undefined;
  readonly detail?: string | undefined;
}

/** An error PostgreSQL sent (a SQLSTATE and a severity), not one of the connection or of the driver. */
export function isDatabaseError(error: unknown): error is PgDatabaseError {
  const code = (error as { code?: unknown } | undefined)?.code;
  return error instanceof Error && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && 'severity' in error;
}

/** A refusal of a row's values (SQLSTATE classes 22 and 23, a trigger's `RAISE EXCEPTION`), not of the database as a whole. */
export const refusesValues = (error: PgDatabaseError): boolean => /^2[23]|^P0001$/.test(error.code);

/** The line (1-based) and column of a COPY's data that PostgreSQL refused, read from the error's context. */
export function copyLine(error: PgDatabaseError): { line: number; column: string | undefined } | undefined {
  const m = /\bCOPY [^\n]*?, line (\d+)(?:, column ([^:\n]+))?/.exec(error.where ?? '');
  return m ? { line: Number(m[1]), column: m[2] } : undefined;
}

/**
 * The SinkError of `error` for `row` of `table` (values in `columns` order; undefined when it cannot be told; the key of a
 * `removal`):
 * `value` for a refused value, else `target`. The message keeps PostgreSQL's own text and SQLSTATE (and its
 * detail, cut short), never a connection URL (PostgreSQL's errors hold none).
 */
export function refusal(error: PgDatabaseError, table: string, columns: readonly Column[], row: readonly unknown[] | undefined, copyColumn?: string, removal = false): RefusedRow {
  const name = error.column ?? copyColumn;
  const column = columns.find((c) => c.name === name);
  const what = [name === undefined ? '' : `column ${name}${column ? ` (${column.edmType})` : ''}`, error.constraint ? `constraint ${error.constraint}` : ''].filter(Boolean).join(', ');
  const detail = error.detail ? `; ${error.detail.length > 200 ? `${error.detail.slice(0, 200)}...` : error.detail}` : '';
  return new RefusedRow(`PostgreSQL refused a row of table ${table}${what ? ` (${what})` : ''}: ${error.message} (SQLSTATE ${error.code}${detail})`,
    refusesValues(error) ? 'value' : 'target', recordKey(columns, row, removal), error);
}

/**
 * The first of `rows` whose write fails when the rows before it are written: the shortest failing prefix, found by
 * halving (`fails(n)` writes the first n rows and undoes them). The whole page is known to fail.
 */
export async function firstRefused<R>(rows: readonly R[], fails: (count: number) => Promise<boolean>): Promise<R | undefined> {
  let passes = 0;
  let failing = rows.length;
  while (failing - passes > 1) {
    const mid = (passes + failing) >> 1;
    if (await fails(mid)) failing = mid;
    else passes = mid;
  }
  return rows[failing - 1];
}
