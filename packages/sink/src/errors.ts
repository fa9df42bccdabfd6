/**
 * What a sink refuses: bad input (a property that `--select` names but the type lacks, an unknown target
 * scheme, a table of another shape, schema drift) or a value its column cannot hold exactly. `code` says
 * which; the message names the thing at fault and never carries a password.
 */
export class SinkError extends Error {
  constructor(
    message: string,
    /** `select`, `entity-set`, `target`, `driver`, `value`, `shape`, `drift`, `locked`, `state` or `mode`. */
    readonly code: 'select' | 'entity-set' | 'target' | 'driver' | 'value' | 'shape' | 'drift' | 'locked' | 'state' | 'mode',
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'SinkError';
  }
}
