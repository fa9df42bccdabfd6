// Size limits of the CLI: `--max-record-size` (one record of an export) and `--max-metadata-size` (the
// `$metadata` document), with defaults that keep a hostile or broken service from filling memory; and the
// parser of durations (`--timeout`, `--retry-backoff`, the worker's lock times).
import { InvalidArgumentError } from 'commander';
import type { ResponseSizeError } from '@sluice/odata';

const MiB = 1024 * 1024;

/** Default `--max-record-size`: 64 MiB of JSON per record. */
export const DEFAULT_MAX_RECORD_BYTES = 64 * MiB;
/** Default `--max-metadata-size`: 64 MiB (the `@sluice/odata` default). */
export const DEFAULT_MAX_METADATA_BYTES = 64 * MiB;

const UNITS: Record<string, number> = {
  '': 1, b: 1, bytes: 1, k: 1024, kib: 1024, m: MiB, mib: MiB, g: 1024 * MiB, gib: 1024 * MiB, kb: 1000, mb: 1e6, gb: 1e9,
};

/** `30`, `30s`, `500ms`, `2m`: a duration, in seconds when it has no unit; returned in ms. */
export function duration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0) throw new InvalidArgumentError('expected a duration such as 30, 30s, 500ms or 2m');
  return Number(m[1]) * (m[2] === 'ms' ? 1 : m[2] === 'm' ? 60_000 : 1000);
}

/** `1048576`, `512k`, `64MiB`, `100MB`, `2g`: a size in bytes (k, m, g and KiB, MiB, GiB are 1024-based; kB, MB, GB 1000-based). */
export function size(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = m === null ? undefined : UNITS[m[2]!.toLowerCase()];
  const bytes = m === null || unit === undefined ? NaN : Math.floor(Number(m[1]) * unit);
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidArgumentError('expected a size such as 64MiB, 512k, 100MB or 1048576 (bytes)');
  return bytes;
}

/** A size for people: `64 MiB`, `512 KiB`, `100 bytes`. */
export function formatSize(bytes: number): string {
  if (bytes >= MiB && bytes % (MiB / 16) === 0) return `${bytes / MiB} MiB`;
  if (bytes >= 1024 && bytes % 64 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const FLAG = { maxRecordBytes: '--max-record-size', maxMetadataBytes: '--max-metadata-size', maxPageBytes: undefined } as const;

/** The message of a passed size limit, naming the flag that raises it. */
export function describeSizeLimit(error: ResponseSizeError): { message: string; hint: string | undefined } {
  const what = error.limit === 'maxRecordBytes' ? 'a record' : error.limit === 'maxMetadataBytes' ? 'the $metadata document' : 'a page';
  const flag = FLAG[error.limit];
  return {
    message: `${what} is larger than the limit of ${formatSize(error.maxBytes)}${flag === undefined ? '' : ` (${flag})`}; nothing more was read`,
    hint: flag === undefined ? undefined : `raise it if the service really sends that much, such as ${flag} ${formatSize(error.maxBytes * 4).replace(' ', '')}`,
  };
}
