// `sluice export --delta-state`: the records of a DeltaSync read, and a state file that advances only
// once the output is complete.
import { DeltaExpiredError, DeltaSync, FileDeltaStore, type DeltaChange, type DeltaStore, type ODataClient, type Query } from '@sluice/odata';
import { DeltaLinkRefused, UsageError } from './errors.js';

/** Flags of `sluice export` about change tracking. */
export interface DeltaFlags {
  /** The file that keeps the delta link between runs. */
  deltaState?: string;
  /** Forget the kept link: a full read that starts tracking anew. */
  deltaReset?: boolean;
}

/**
 * Loads the kept link from the state file but holds a new one back until {@link commit}, so an
 * interrupted or failed export leaves the file as it was. A refused link is not cleared from the file.
 */
class HeldDeltaStore implements DeltaStore {
  private held: { key: string; link: string } | undefined;
  constructor(private readonly file: FileDeltaStore, private readonly reset: boolean) {}

  load(key: string): Promise<string | undefined> {
    return this.reset ? Promise.resolve(undefined) : this.file.load(key);
  }

  save(key: string, link: string): Promise<void> {
    this.held = { key, link };
    return Promise.resolve();
  }

  clear(): Promise<void> {
    return Promise.resolve();
  }

  /** Writes the new link to the state file (temporary file, then rename). */
  async commit(): Promise<void> {
    if (this.held) await this.file.save(this.held.key, this.held.link);
  }
}

/** A change as an output record: entities as they are, removals and links as annotated records. */
function recordOf(change: DeltaChange<unknown>): unknown {
  switch (change.kind) {
    case 'entity':
      return change.value;
    case 'removed':
      return { '@removed': { reason: change.reason ?? 'deleted' }, '@id': change.id };
    default:
      return { [`@${change.kind}`]: { source: change.source, relationship: change.relationship, target: change.target } };
  }
}

/** A delta read of `query` as records, with `commit()` to advance the state file afterwards. */
export interface DeltaRecords {
  records: AsyncIterable<unknown>;
  commit(): Promise<void>;
}

/** Checks the flags that do not go with `--delta-state`, before anything is read. */
export function checkDeltaFlags(flags: DeltaFlags & { format: string; pageSize?: number; odataVersion?: string }): void {
  if (flags.deltaState === undefined) {
    if (flags.deltaReset) throw new UsageError('--delta-reset needs --delta-state <file>');
    return;
  }
  if (flags.deltaState === '') throw new UsageError('--delta-state needs a file name');
  if (flags.format === 'csv') {
    throw new UsageError('--delta-state does not go with --format csv (a CSV row cannot mark a removed record)', 'use --format ndjson or json');
  }
  if (flags.pageSize !== undefined) throw new UsageError('--page-size does not go with --delta-state (the service pages change-tracking reads itself)');
  if (flags.odataVersion === '2') throw new UsageError('--delta-state needs an OData v4 service (OData v2 has no delta links)');
}

/** Starts a change-tracking read of `query`; the state file key is the query URL. */
export async function deltaRecords(od: ODataClient, query: Query, flags: DeltaFlags, signal: AbortSignal): Promise<DeltaRecords> {
  const protocol = await od.ready(signal);
  if (protocol.version !== '4.0') throw new UsageError('--delta-state needs an OData v4 service (this one speaks OData v2, which has no delta links)');
  const store = new HeldDeltaStore(new FileDeltaStore(flags.deltaState!), flags.deltaReset === true);
  const sync = new DeltaSync(od, query, { store, signal });
  async function* records(): AsyncGenerator<unknown> {
    for await (const change of sync.changes()) yield recordOf(change);
  }
  return { records: records(), commit: () => store.commit() };
}

/** A refused delta link as the CLI reports it (exit 1, with a hint); other errors as they are. */
export function explainDeltaError(error: unknown, stateFile: string | undefined): unknown {
  return error instanceof DeltaExpiredError && stateFile !== undefined ? new DeltaLinkRefused(error.status, stateFile) : error;
}
