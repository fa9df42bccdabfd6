// A contender of the cli-export bench, run in its own process: `sluice <bundle> <args...>` runs the sluice
// executable, `hand <first-page-url> <out>` a hand-written export loop. Either way the process writes its
// CPU time, its split over the process's threads and peak RSS (VmHWM: see proc-rss.ts) as JSON to file descriptor 3 when it exits.
import { createWriteStream, readdirSync, readFileSync, writeSync } from 'node:fs';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { request } from 'undici';
import { peakRssKiB } from './proc-rss.js';

/**
 * CPU ms of the process's live threads by thread name: `main`, and the others by their `comm` (Node 20 leaves
 * V8's worker threads, which run the parallel scavenges and concurrent marking, and libuv's pool, which runs the
 * file writes, all named `node`; newer versions name them), from Linux's `/proc/self/task/<tid>/schedstat` (ns on
 * the CPU); empty where there is no such file. Threads that ended earlier are not in it (the process total is).
 */
function threadCPU(): Record<string, number> {
  const byName: Record<string, number> = {};
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return byName;
  }
  for (const tid of tids) {
    try {
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'latin1').split(' ')[0]);
      const name = tid === String(process.pid) ? 'main' : readFileSync(`/proc/self/task/${tid}/comm`, 'latin1').trim();
      byName[name] = (byName[name] ?? 0) + ns / 1e6;
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

process.on('exit', () => {
  const usage = process.resourceUsage();
  writeSync(3, JSON.stringify({ cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000, maxRssKiB: peakRssKiB(), threads: threadCPU() }));
});

const [mode, target = '', ...rest] = process.argv.slice(2);

/** The loop a developer writes by hand: undici request, JSON.parse, a line per record, follow nextLink. */
async function handExport(first: string, out: string): Promise<void> {
  const file = createWriteStream(out);
  let url: string | undefined = first;
  while (url) {
    const { body } = await request(url, { headers: { accept: 'application/json;odata.metadata=minimal;IEEE754Compatible=true' } });
    const doc = JSON.parse(await body.text()) as { value: unknown[]; '@odata.nextLink'?: string };
    let text = '';
    for (const record of doc.value) text += `${JSON.stringify(record)}\n`;
    if (!file.write(text)) await once(file, 'drain');
    url = doc['@odata.nextLink'];
  }
  file.end();
  await once(file, 'finish');
}

if (mode === 'hand') await handExport(target, rest[0]!);
else if (mode === 'sluice') {
  // The bundle reads process.argv.slice(2), as when it runs as `node sluice.mjs <args>`.
  process.argv = [process.argv[0]!, target, ...rest];
  await import(pathToFileURL(target).href);
} else throw new Error(`cli-runner: unknown mode ${String(mode)}`);
