import { ConfigError } from './errors.js';

/**
 * Refuses keys an options object does not know, naming the key and the nearest valid one, so a typo
 * (`baseUrl`, `retry: { limit: 3 }`) fails at construction instead of silently doing nothing. Every
 * sluice package checks its options with it.
 *
 * @param option - Path of the object being checked, for the message (`''` for the top level, `retry`, ...).
 * @param value - The options object given by the caller.
 * @param known - Every key the object accepts.
 * @param hints - Keys other libraries use for the same setting, mapped to ours (`limit` -> `maxAttempts`).
 * @throws ConfigError naming the first unknown key.
 *
 * @example
 * ```ts
 * checkOptionKeys('retry', { limit: 3 }, ['maxAttempts', 'waitBase'], { limit: 'maxAttempts' })
 * // ConfigError: retry.limit is not an option of retry; did you mean retry.maxAttempts?
 * ```
 */
export function checkOptionKeys(
  option: string,
  value: object,
  known: readonly string[],
  hints: Readonly<Record<string, string>> = {},
): void {
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    const path = option === '' ? key : `${option}.${key}`;
    const suggestion = Object.hasOwn(hints, key) ? hints[key] : nearest(key, known);
    const hint = suggestion === undefined
      ? `; known options: ${known.join(', ')}`
      : `; did you mean ${option === '' ? suggestion : `${option}.${suggestion}`}?`;
    // A nested object names its parent: `retry.limit is not an option of retry; did you mean retry.maxAttempts?`
    throw new ConfigError(path, `${option === '' ? 'is not a known option' : `is not an option of ${option}`}${hint}`);
  }
}

/** The known key closest to `key` (case-insensitive edit distance), when it is close enough to be a typo. */
function nearest(key: string, known: readonly string[]): string | undefined {
  const lower = key.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  // A third of the word, at least 2 edits: `baseUrl` -> `baseURL` (0 after case folding), `timout` -> `timeout`.
  return bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = v;
    }
  }
  return d[rows * cols - 1]!;
}
