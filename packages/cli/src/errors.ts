// The CLI's own errors and exit codes, free of imports: every command module and the start-up path take
// them without loading the client packages (the one line printed for an error is in error-report.ts).

/** Exit codes of `sluice` (documented in the README). */
export const EXIT = {
  ok: 0,
  /** The service, the network or the token endpoint failed. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** Interrupted with Ctrl-C (128 + SIGINT). */
  sigint: 130,
  /** Stopped with SIGTERM (128 + SIGTERM). */
  sigterm: 143,
  /** An error escaped the command, or it was left unfinished with nothing to wait for (sysexits EX_SOFTWARE). */
  internal: 70,
} as const;

/** A mistake in the command line: printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string, readonly hint?: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The service refused the delta link kept in the `--delta-state` file: exit 1, with what to do. */
export class DeltaLinkRefused extends Error {
  readonly hint = 'run again with --delta-reset (or delete the state file) for a full read that starts tracking anew';
  constructor(readonly status: number, stateFile: string) {
    super(`the service no longer accepts the delta link kept in ${stateFile} (HTTP ${status}); nothing was exported and the file is unchanged`);
    this.name = 'DeltaLinkRefused';
  }
}

/** The export was stopped by a signal; `exitCode` is 130 or 143. */
export class Interrupted extends Error {
  constructor(readonly signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted by ${signal}`);
    this.name = 'Interrupted';
  }

  get exitCode(): number {
    return this.signal === 'SIGINT' ? EXIT.sigint : EXIT.sigterm;
  }
}
