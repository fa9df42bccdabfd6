import cliProgress from 'cli-progress';
import type { ProgressMode } from './command-options.js';

export type { ProgressMode };

/** What the exporter tells the progress display. */
export interface Progress {
  /** False when nothing is shown (then no `$count` is asked for). */
  readonly active: boolean;
  update(records: number): void;
  setTotal(total: number): void;
  stop(): void;
}

const NONE: Progress = { active: false, update() {}, setTotal() {}, stop() {} };
const WIDTH = 24;

/** `1,234,567` */
export const formatCount = (n: number): string => Math.round(n).toLocaleString('en-US');

/** `1 record`, `2 records` */
export const recordsText = (n: number): string => `${formatCount(n)} ${n === 1 ? 'record' : 'records'}`;

/** `4.2 s`, `3 min 05 s` */
export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${String(Math.floor(seconds % 60)).padStart(2, '0')} s`;
}

/** The progress line: records, records/s and elapsed time; with a total also a bar, percentage and ETA. */
function render(value: number, total: number, startTime: number): string {
  const elapsed = Math.max((Date.now() - startTime) / 1000, 0.001);
  const rate = value / elapsed;
  const common = `${formatCount(rate)} records/s | ${formatSeconds(elapsed)}`;
  if (total <= 0) return `${formatCount(value)} records | ${common}`;
  const share = Math.min(value / total, 1);
  const filled = Math.round(share * WIDTH);
  const eta = rate > 0 ? formatSeconds(Math.max(total - value, 0) / rate) : '?';
  return `${'█'.repeat(filled)}${'░'.repeat(WIDTH - filled)} ${Math.floor(share * 100)}% | ${formatCount(value)}/${formatCount(total)} records | ${common} | ETA ${eta}`;
}

/**
 * The progress display on stderr (cli-progress): redrawn in place at most 10 times a second on a
 * terminal, or a line every 2 s with `--progress=always` when stderr is not a terminal.
 */
export function createProgress(mode: ProgressMode, stderr: NodeJS.WritableStream & { isTTY?: boolean }): Progress {
  const tty = stderr.isTTY === true;
  if (mode === 'never' || (mode === 'auto' && !tty)) return NONE;
  const bar = new cliProgress.SingleBar({
    stream: stderr,
    format: (_options, params) => render(params.value, params.total, params.startTime),
    hideCursor: tty,
    fps: 10,
    noTTYOutput: !tty,
    notTTYSchedule: 2000,
    clearOnComplete: false,
    linewrap: false,
  });
  bar.start(0, 0);
  let stopped = false;
  return {
    active: true,
    update: (records) => bar.update(records),
    setTotal: (total) => { if (!stopped) bar.setTotal(total); },
    stop: () => {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}
