import { debuglog } from 'node:util';
import type { SluiceEvent, SluiceEventListener } from './events.js';

/**
 * The debug log, switched on the Node way: `NODE_DEBUG=sluice` (through `util.debuglog`, lines start
 * with `SLUICE <pid>:`) or `DEBUG=sluice:*` (the `debug` package's convention, lines start with
 * `sluice:http`), both on stderr. It is an event listener that a client attaches only when the
 * environment asks, so with the log off nothing is formatted and no event is built. Lines hold what
 * events hold: URLs redacted, no header, no body.
 */

const NAMESPACE = 'sluice:http';

/** Whether a `DEBUG` list (`sluice:*,-sluice:x`, comma or space separated, `*` wildcards) enables `namespace`. */
export function debugEnables(list: string | undefined, namespace: string = NAMESPACE): boolean {
  if (list === undefined || list.trim() === '') return false;
  let enabled = false;
  for (const raw of list.split(/[\s,]+/)) {
    if (raw === '') continue;
    const skip = raw.startsWith('-');
    const pattern = new RegExp(`^${(skip ? raw.slice(1) : raw).replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`);
    if (!pattern.test(namespace)) continue;
    if (skip) return false;
    enabled = true;
  }
  return enabled;
}

let writer: ((line: string) => void) | null | undefined;

/** Where debug lines go for this process, or undefined when the environment does not ask for them (read once). */
export function debugWriter(): ((line: string) => void) | undefined {
  if (writer === undefined) {
    const log = debuglog('sluice');
    if (debugEnables(process.env.DEBUG)) writer = (line) => process.stderr.write(`${NAMESPACE} ${line}\n`);
    else if (log.enabled) writer = (line) => log('%s', line);
    else writer = null;
  }
  return writer ?? undefined;
}

function ms(value: number): string {
  return `${value < 10 ? value.toFixed(1) : Math.round(value)}ms`;
}

/** One log line for an event, or undefined for `request.start` and `request.end` (each attempt gets its line when it ends). */
export function formatEvent(event: SluiceEvent): string | undefined {
  switch (event.type) {
    case 'request.start':
    case 'request.end':
      return undefined;
    case 'request.response':
      return `${event.method} ${event.url} ${event.status} ${ms(event.durationMs)} attempt ${event.attempt}/${event.maxAttempts}`;
    case 'request.error':
      return `${event.method} ${event.url} ${event.errorType} ${ms(event.durationMs)} attempt ${event.attempt}/${event.maxAttempts}: ${event.message}`;
    case 'retry.scheduled':
      return `${event.method} ${event.url} retry ${event.attempt + 1}/${event.maxAttempts} in ${ms(event.delayMs)} (${event.reason})`;
    default: {
      const { type, ...fields } = event as { type: string } & Record<string, unknown>;
      return [type, ...Object.entries(fields).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)].join(' ');
    }
  }
}

/** A listener writing {@link formatEvent} lines to `write`. */
export function debugListener(write: (line: string) => void): SluiceEventListener {
  return (event) => {
    const line = formatEvent(event);
    if (line !== undefined) write(line);
  };
}
