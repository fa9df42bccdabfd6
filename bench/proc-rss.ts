// Resident set size of this process for the bench's child processes, from Linux's /proc/self/status.
// `process.resourceUsage().maxRSS` is no use there: Linux keeps it across fork and exec, so a child would report
// at least its parent's (the bench process's) peak. VmHWM starts afresh at exec.
import { readFileSync } from 'node:fs';

/** A `kB` field of /proc/self/status, in KiB; undefined where there is no such file (not Linux). */
function statusKiB(field: 'VmHWM' | 'VmRSS' | 'RssAnon'): number | undefined {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** This process's peak RSS in KiB (VmHWM; maxRSS where /proc is missing). */
export function peakRssKiB(): number {
  return statusKiB('VmHWM') ?? process.resourceUsage().maxRSS;
}

/** This process's RSS now in KiB (VmRSS; memoryUsage().rss where /proc is missing). */
export function currentRssKiB(): number {
  return statusKiB('VmRSS') ?? Math.round(process.memoryUsage().rss / 1024);
}

/** This process's anonymous resident memory now in KiB (RssAnon: V8's heap and malloc arenas, no mapped files); undefined off Linux. */
export function anonRssKiB(): number | undefined {
  return statusKiB('RssAnon');
}
