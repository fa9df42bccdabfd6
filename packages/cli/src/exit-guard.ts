// The `sluice` process never ends without a message: an error that escapes the command's own handling
// (an uncaught exception, an unhandled rejection) and an event loop that runs dry while the command
// is still unfinished (a wait nobody keeps alive) each print one line, remove the temporary file of an
// unfinished `--out` and exit with EXIT.internal.
import { describeError, EXIT } from './errors.js';
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
 * Runs `command` (the whole command line) and exits with the code it resolves with. Installs the
 * handlers of the ways out that bypass it; each prints one line and exits with {@link EXIT.internal}.
 */
export function runGuarded(command: () => Promise<number>): void {
  let settled = false;
  process.on('uncaughtException', (error) => stop(`${describeError(error)} (an error escaped the command: ${REPORT})`));
  process.on('unhandledRejection', (reason) => stop(`${describeError(reason)} (an error escaped the command: ${REPORT})`));
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
      stop(`${describeError(error)} (an error escaped the command: ${REPORT})`);
    },
  );
}
