import { redactURL } from '@sluice/core';
import type { Partition, PartitionPlan } from '@sluice/odata';
import { FileSink } from './output.js';

/** Version of the `_manifest.json` layout; readers check it. */
export const MANIFEST_VERSION = 1;

/** The name of the manifest in the output directory, written after every part file. */
export const MANIFEST_FILE = '_manifest.json';

/** One partition's line in the manifest. */
export interface ManifestPart {
  index: number;
  file: string;
  /** The partition's range as `$filter` text (ANDed with `filter`), null when it is the whole set. */
  range: string | null;
  lower: string | number | null;
  upper: string | number | null;
  nulls: boolean;
  records: number;
}

/** `_manifest.json`: what was exported, how it was split, and the records of each part file. */
export interface Manifest {
  manifestVersion: number;
  complete: true;
  service: string;
  entitySet: string;
  format: string;
  filter: string | null;
  search: string | null;
  partitionBy: string;
  partitionType: string;
  boundaries: string;
  requested: number;
  note: string | null;
  records: number;
  startedAt: string;
  finishedAt: string;
  /** `process` for `--parallel` in one process, `queue` for BullMQ workers. */
  runner: 'process' | 'queue';
  partitions: ManifestPart[];
}

/** The manifest line of a partition once its file is written. */
export function manifestPart(partition: Partition, file: string, records: number): ManifestPart {
  return {
    index: partition.index, file, range: partition.filter ?? null, lower: partition.lower ?? null, upper: partition.upper ?? null, nulls: partition.nulls, records,
  };
}

/** What the manifest says of the export apart from its parts. */
export function manifestHead(
  service: string, plan: PartitionPlan, flags: { format: string; filter?: string | undefined; search?: string | undefined }, startedAt: Date, runner: 'process' | 'queue',
): Omit<Manifest, 'records' | 'finishedAt' | 'partitions'> {
  return {
    manifestVersion: MANIFEST_VERSION, complete: true, service: redactURL(service), entitySet: plan.entitySet, format: flags.format,
    filter: flags.filter ?? null, search: flags.search ?? null, partitionBy: plan.property, partitionType: plan.type, boundaries: plan.boundaries,
    requested: plan.requested, note: plan.note ?? null, startedAt: startedAt.toISOString(), runner,
  };
}

/** Writes the manifest atomically (temporary file, then rename), after every part file. */
export async function writeManifest(path: string, head: Omit<Manifest, 'records' | 'finishedAt' | 'partitions'>, parts: readonly ManifestPart[]): Promise<Manifest> {
  const sorted = [...parts].sort((a, b) => a.index - b.index);
  const manifest: Manifest = { ...head, records: sorted.reduce((n, p) => n + p.records, 0), finishedAt: new Date().toISOString(), partitions: sorted };
  const sink = await FileSink.open(path);
  try {
    await sink.write(`${JSON.stringify(manifest, null, 2)}\n`);
    await sink.commit();
  } catch (error) {
    await sink.discard();
    throw error;
  }
  return manifest;
}
