// Schema drift between the columns a table was synced with and `$metadata` now: a new property becomes a
// new column; a changed type, a changed key or a column that would no longer be written is an error that
// names it (`--rebuild` reloads). Nothing is dropped or rewritten silently.
import type { ServiceMetadata } from '@sluice/odata';
import { entityTypeOf, type Column } from '../columns.js';
import { SinkError } from '../errors.js';
import type { SqlTarget } from './sql-target.js';
import { ident, sqlType } from './sql-types.js';
import type { SyncState } from './state.js';

function typeText(c: Column): string {
  const facets = [c.precision, c.scale].filter((f) => f !== undefined);
  return `${c.edmType}${facets.length ? `(${facets.join(',')})` : ''}`;
}

/**
 * Compares the kept columns of `state` with `columns`; adds the new ones to `table` (when it exists) and
 * tells `notice`. Throws a SinkError `drift` naming the first property whose type or key role changed, or
 * that the table has but the sync would no longer write.
 */
export async function checkDrift(
  target: SqlTarget, table: string, md: ServiceMetadata, entitySet: string, state: SyncState, columns: readonly Column[],
  notice: ((message: string) => void) | undefined,
): Promise<void> {
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
  const added = columns.filter((c) => !kept.has(c.name));
  if (added.length === 0 || state.phase === 'loading') return;
  const existing = await target.describe(table);
  if (existing === undefined) return;
  await target.transaction(async () => {
    for (const c of added) await target.exec(`ALTER TABLE ${ident(table)} ADD COLUMN ${ident(c.name)} ${sqlType(target.dialect, c)}`);
  });
  notice?.(`new propert${added.length === 1 ? 'y' : 'ies'} ${added.map((c) => c.name).join(', ')} of ${entitySet}: added as column${added.length === 1 ? '' : 's'} of ${table}; rows that do not change keep NULL there until --rebuild`);
}
