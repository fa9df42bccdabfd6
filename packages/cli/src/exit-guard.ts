// The `sluice` process never ends without a message: an error that escapes the command's own handling
// (an uncaught exception, an unhandled rejection) and an event loop that runs dry while the command
// is still unfinished (a wait nobody keeps alive) each print one line, remove the temporary file of an
// unfinished `--out` and exit with EXIT.internal.
import { EXIT } from './errors.js';
import { removePendingFiles } from './output.js';

/** The last thing the command was doing, for the message of an unfinished exit (never a secret). */
let lastActivity: (() => string) | undefined;

/** Records what the command is doing: a function giving an event line as `--verbose` prints it, called only when needed. */
export function noteActivity(describe: () => string): void {
  lastActivity = describe;
}

/** Prints `line`, removes the temporary files and exits at once with EXIT.internal. */
function stop(line: string): never {
  removePendingFiles();
  process.stderr.write(`${line}\n`);
  process.exit(EXIT.internal);
}

const REPORT = 'a defect in sluice: please report it';

/**
 * Prints the line of an error that escaped the command and exits. Describing it takes the error classes of
 * the client packages, loaded here (not at start-up); should even that fail, the error's own text is printed.
 */
function escaped(error: unknown): void {
  // the unfinished --out file goes at once, not after the import
  removePendingFiles();
  import('./error-report.js').then(
    ({ describeError }) => stop(`${describeError(error)} (an error escaped the command: ${REPORT})`),
    () => stop(`sluice: ${error instanceof Error ? error.message : String(error)} (an error escaped the command: ${REPORT})`),
  );
}

/**
 * Runs `command` (the whole command line) and exits with the code it resolves with. Installs the
 * handlers of the ways out that bypass it; each prints one line and exits with {@link EXIT.internal}.
 */
export function runGuarded(command: () => Promise<number>): void {
  let settled = false;
  process.on('uncaughtException', escaped);
  process.on('unhandledRejection', escaped);
  // Emitted when nothing keeps the event loop alive: a command still running then waits on something that can never happen.
  process.on('beforeExit', () => {
    if (settled) return;
    const last = lastActivity === undefined ? '' : `; the last event was: ${lastActivity()}`;
    stop(`sluice: stopped unfinished: nothing was left to wait for${last} (${REPORT})`);
  });
  command().then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    (error: unknown) => {
      settled = true;
      escaped(error);
    },
  );
}
