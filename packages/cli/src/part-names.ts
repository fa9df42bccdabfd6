/** The file name of partition `index` (1-based) in the output directory: `part-00001.ndjson`. */
export function partFileName(index: number, format: string): string {
  return `part-${String(index).padStart(5, '0')}.${format}`;
}

/** Names of part files, whatever their format (a former run's leftovers are found by it). */
export const PART_FILE = /^part-\d{5}\.[a-z]+$/;
