// A row the database itself refused while the sink wrote it (PostgreSQL: pg-refused.ts, SQLite: sqlite-refused.ts):
// a SinkError whose message the caller completes with the entity set (RowMaker.named).
import type { Column } from '../columns.js';
import { SinkError } from '../errors.js';
import { shownValue } from '../values.js';

/** The database's refusal of a row of a page, with the driver's error; `record` says which record (its key), when known. */
export class RefusedRow extends SinkError {
  constructor(message: string, code: 'value' | 'target', readonly record: string | undefined, readonly dbError: Error) {
    super(message, code, { cause: dbError });
  }
}

/** `the record with key ID=3` (`the removal of key ID=2` for a `removal`) of `row` (values in `columns` order), or undefined. */
export function recordKey(columns: readonly Column[], row: readonly unknown[] | undefined, removal: boolean): string | undefined {
  if (row === undefined) return undefined;
  const key = columns.flatMap((c, i) => (c.key ? [`${c.name}=${shownValue(row[i])}`] : [])).join(', ');
  return key === '' ? undefined : `${removal ? 'the removal of' : 'the record with'} key ${key}`;
}
