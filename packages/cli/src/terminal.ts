/** Where a command writes: data on stdout, everything for people (progress, notes, errors) on stderr. */
export interface Terminal {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Prints a line on stderr. */
  note(line: string): void;
  /** Prints a line on stderr with `--verbose` only. Never give it a secret. */
  debug(line: string): void;
}

/** The process's own terminal; `verbose` turns `debug` on. */
export function processTerminal(verbose = false): Terminal {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    note: (line) => process.stderr.write(`${line}\n`),
    debug: (line) => { if (verbose) process.stderr.write(`sluice: ${line}\n`); },
  };
}
