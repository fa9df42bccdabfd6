/**
 * What a sink refuses: bad input (a property that `--select` names but the type lacks, an unknown target
 * scheme, a table of another shape, schema drift) or a value its column cannot hold exactly. `code` says
 * which; the message names the thing at fault and never carries a password.
 */
export class SinkError extends Error {
  constructor(
    message: string,
    /**
     * Bad input, found before any row moves: `select`, `entity-set`, `target` (scheme or table name),
     * `shape`, `drift`, `mode`, `partition` (partition options, or a partition property not in the set or
     * without order). Otherwise: `unreachable` (the database), `driver` (none installed),
     * `locked` (another sync runs), `value` (a value its column cannot hold, or a row PostgreSQL or SQLite
     * refuses: a constraint, a narrower column or a trigger of the table), `state` (a removal without a readable
     * key), `codec` (a compression this Node lacks). The database refusing a write for a reason other than the
     * row's values (a full disk, a permission, a read-only file) is `target`.
     */
    readonly code: 'select' | 'entity-set' | 'target' | 'shape' | 'drift' | 'mode' | 'partition' | 'unreachable' | 'driver' | 'locked' | 'value' | 'state' | 'codec',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SinkError';
  }
}
