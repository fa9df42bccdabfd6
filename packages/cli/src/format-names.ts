// The names of `sluice export`'s output formats, apart from the formats themselves: the command line declares its
// options with them at start-up, before (and without) loading any client package.

/** Output formats of `sluice export`. */
export const FORMATS = ['ndjson', 'csv', 'json', 'parquet'] as const;
export type FormatName = (typeof FORMATS)[number];
