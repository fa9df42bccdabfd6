// Resolves the rows an expanded navigation property contributes to one entity.
import { evaluate } from './collection.js';
import { ENTITY_SETS, type EntitySetDef, type SetSizes } from './model.js';
import type { ExpandPlan } from './projection.js';

/** The expanded rows of `plan` for `row`, and their count before $skip/$top. */
export function expandedRows(plan: ExpandPlan, row: unknown, sizes: SetSizes): { target: EntitySetDef; rows: unknown[]; total: number } {
  const target = ENTITY_SETS.get(plan.nav.target) as EntitySetDef;
  const base = plan.nav.resolve(row, sizes);
  const result = evaluate({
    set: target,
    base,
    ...(plan.filter ? { filter: plan.filter } : {}),
    ...(plan.orderby ? { orderby: plan.orderby } : {}),
    ...(plan.search !== undefined ? { search: plan.search } : {}),
  });
  const skip = plan.skip ?? 0;
  const n = Math.max(0, Math.min(result.total - skip, plan.top ?? Infinity));
  return { target, rows: result.slice(skip, n).map((i) => target.row(i)), total: result.total };
}

/** Key predicate of a row as it appears in a URL: `(1)` or `(OrderID=1,ItemNo='A')`. */
export function keyPredicate(set: EntitySetDef, row: unknown): string {
  const literal = (name: string): string => {
    const prop = set.properties.find((p) => p.name === name);
    const v = prop?.get(row);
    return typeof v === 'string' ? `'${encodeURIComponent(v.replace(/'/g, "''"))}'` : String(v);
  };
  if (set.keys.length === 1) return `(${literal(set.keys[0] as string)})`;
  return `(${set.keys.map((k) => `${k}=${literal(k)}`).join(',')})`;
}
