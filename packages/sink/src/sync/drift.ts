// Schema drift between the columns a table was synced with and `$metadata` now: a new property becomes a
// new column, filled for every row by a reload (rows that do not change would otherwise keep NULL there); a
// changed type, a changed key or a column that would no longer be written is an error that names it
// (`--rebuild` reloads). Nothing is dropped or rewritten silently.
import type { ServiceMetadata } from '@sluice/odata';
import { entityTypeOf, type Column } from '../columns.js';
import { SinkError } from '../errors.js';
import type { SyncState } from './state.js';

function typeText(c: Column): string {
  const facets = [c.precision, c.scale].filter((f) => f !== undefined);
  return `${c.edmType}${facets.length ? `(${facets.join(',')})` : ''}`;
}

/**
 * Compares the kept columns of `state` with `columns` and resolves with the columns that are new (the
 * caller reloads the table with them). Throws a SinkError `drift` naming the first property whose type or
 * key role changed, or that the table has but the sync would no longer write.
 */
export function checkDrift(md: ServiceMetadata, entitySet: string, state: SyncState, columns: readonly Column[]): Column[] {
  const table = state.table;
  const kept = new Map(state.columns.map((c) => [c.name, c]));
  const now = new Map(columns.map((c) => [c.name, c]));
  const hint = '--rebuild reloads the table with the new shape';
  for (const c of columns) {
    const before = kept.get(c.name);
    if (before === undefined) continue;
    if (typeText(before) !== typeText(c) || before.kind !== c.kind) {
      throw new SinkError(`property ${c.name} of ${entitySet} changed type from ${typeText(before)} to ${typeText(c)} since table ${table} was synced (${hint})`, 'drift');
    }
    if (before.key !== c.key) throw new SinkError(`the key of ${entitySet} changed (${c.name} ${c.key ? 'is now' : 'is no longer'} part of it) since table ${table} was synced (${hint})`, 'drift');
  }
  const type = entityTypeOf(md, entitySet);
  for (const before of state.columns) {
    if (now.has(before.name)) continue;
    throw new SinkError(type.properties.has(before.name)
      ? `table ${table} has column ${before.name}, which --select now leaves out: its values would go stale (${hint}, or select it)`
      : `property ${before.name} is gone from ${entitySet} in $metadata, but table ${table} has it (${hint})`, 'drift');
  }
  return columns.filter((c) => !kept.has(c.name));
}

/** What the user is told about new columns: `reload` when the table is read again to fill them. */
export function addedNotice(added: readonly Column[], entitySet: string, table: string, reload: boolean): string {
  const one = added.length === 1;
  const what = `new propert${one ? 'y' : 'ies'} ${added.map((c) => c.name).join(', ')} of ${entitySet}`;
  return reload
    ? `${what}: reloading ${entitySet} into a new table with ${one ? 'this column' : 'these columns'}, which replaces ${table} when complete (every row gets ${one ? 'its value' : 'their values'}; until then ${table} is as it was)`
    : `${what}: ${one ? 'a column' : 'columns'} of the table this run loads`;
}
