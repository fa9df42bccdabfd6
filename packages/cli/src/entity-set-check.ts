import { HttpError } from '@sluice/core';
import { PageError, type ODataClient } from '@sluice/odata';
import { UsageError } from './errors.js';

/** Levenshtein distance of two short names, case-insensitive. */
function distance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let row = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const next = [i];
    for (let j = 1; j <= y.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1));
    row = next;
  }
  return row[y.length]!;
}

/**
 * After a 404, asks `$metadata` whether `entitySet` exists: when it does not, the mistake is the
 * name, reported as a usage error with the nearest entity set; otherwise the original error stands.
 */
export async function explainNotFound(od: ODataClient, entitySet: string, error: unknown, signal: AbortSignal): Promise<unknown> {
  const status = error instanceof PageError ? error.status : error instanceof HttpError ? error.status : undefined;
  if (status !== 404 || signal.aborted) return error;
  const md = await od.metadata({ signal }).catch(() => undefined);
  if (md === undefined || md.entitySets.has(entitySet)) return error;
  const names = [...md.entitySets.keys()];
  const nearest = names.map((name) => ({ name, d: distance(entitySet, name) })).sort((a, b) => a.d - b.d)[0];
  const hint = nearest && nearest.d <= Math.max(2, Math.floor(entitySet.length / 3))
    ? `did you mean ${nearest.name}?`
    : `its entity sets: ${names.slice(0, 8).join(', ')}${names.length > 8 ? `, ... (sluice metadata lists all ${names.length})` : ''}`;
  return new UsageError(`the service has no entity set ${JSON.stringify(entitySet)}`, hint);
}
