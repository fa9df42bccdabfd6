import { fork, spawn, type ChildProcess } from 'node:child_process';

/** Whether this file runs compiled (bench/.out, plain node) or from source (through tsx). */
const compiled = import.meta.url.endsWith('.js');

/** URL of a sibling bench module, `.ts` source or its compiled `.js`, whichever way the bench runs. */
export function benchModule(module: string): URL {
  return new URL(compiled ? module.replace(/\.ts$/, '.js') : module, import.meta.url);
}

/** Starts a bench server module in a child process and resolves with its port once it listens. */
export async function startChildServer(module: string, args: string[] = []): Promise<{ port: number; stop(): void; child: ChildProcess }> {
  const execArgv = compiled ? [] : ['--import', 'tsx'];
  const child = fork(benchModule(module), args, { execArgv, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())));
  });
  return { port, child, stop: () => child.kill() };
}

/** Runs `task` `total` times with `concurrency` in flight; resolves with the elapsed ms. */
export async function drive(total: number, concurrency: number, task: () => Promise<unknown>): Promise<number> {
  let started = 0;
  const t0 = performance.now();
  const worker = async (): Promise<void> => {
    while (started < total) {
      started++;
      await task();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - t0;
}

/** Median of a list of numbers. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Wall time of a measured child, and the CPU time and peak RSS it reported on file descriptor 3. */
export interface MeasuredRun { ms: number; cpuMs: number; maxRssKiB: number; /** CPU ms by thread name, where the runner reports it. */ threads?: Record<string, number> }

/**
 * Runs a runner module (`./cli-runner.ts`, `./sink-runner.ts`) in its own node process with `args`, and
 * resolves with its wall time and the CPU time and peak RSS it writes as JSON to file descriptor 3 on exit.
 */
export async function runMeasured(module: string, args: string[], nodeFlags: string[] = []): Promise<MeasuredRun> {
  const runner = benchModule(module);
  const execArgv = runner.pathname.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeFlags, ...execArgv, runner.pathname, ...args], { stdio: ['ignore', 'ignore', 'inherit', 'pipe'] });
  let report = '';
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => { report += chunk.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  const ms = performance.now() - t0;
  if (code !== 0) throw new Error(`${module}: ${args.slice(0, 3).join(' ')} exited with ${code}`);
  return { ms, ...(JSON.parse(report) as Omit<MeasuredRun, 'ms'>) };
}
