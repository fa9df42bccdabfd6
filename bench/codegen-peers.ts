// The generators bench/codegen.ts compares sluice with, run as their users run them (their CLI as a child
// process, from bench/peers/ where bench/peers/install.ts puts them), and the `tsc --noEmit` of a program using
// what each wrote. Peers write into bench/peers/node_modules/.sluice-codegen/, so their output finds its
// runtime packages (@sap-cloud-sdk/odata-v2/-v4, @odata2ts/odata-service) the way an application would.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { peersDir } from './peers/install.js';

/** Where the peers' input, output and tsc programs go (inside node_modules: lint, typecheck and git leave it alone). */
export const peerWork = join(peersDir, 'node_modules', '.sluice-codegen');

export type Generator = 'sap' | 'odata2ts';

/** One generator run: wall time (child process start-up included), bytes written, the module a program imports. */
export type GenRun = { ok: true; ms: number; bytes: number; entry: string } | { ok: false; ms: number; why: string };

/** What `tsc --noEmit --extendedDiagnostics` reports for a program, and the peak RSS of its process. */
export interface TscRun { seconds: number; heapMB: number; peakRssMB: number; types: number; errors: number; firstError: string }

/** Bytes of every file under `path`. */
export function bytesIn(path: string): number {
  return readdirSync(path).reduce((sum, f) => {
    const full = join(path, f);
    return sum + (statSync(full).isDirectory() ? bytesIn(full) : statSync(full).size);
  }, 0);
}

function files(path: string): string[] {
  return readdirSync(path).flatMap((f) => (statSync(join(path, f)).isDirectory() ? files(join(path, f)) : [join(path, f)]));
}

/** Runs one peer generator on `text` (an EDMX document) with a time limit; `slug` names its folders. */
export function runPeer(generator: Generator, slug: string, text: string, timeoutMs: number): GenRun {
  const input = join(peerWork, `${generator}-in`, slug);
  const output = join(peerWork, `${generator}-out`, slug);
  rmSync(input, { recursive: true, force: true });
  rmSync(output, { recursive: true, force: true });
  mkdirSync(input, { recursive: true });
  writeFileSync(join(input, 'service.edmx'), text);
  // odata2ts reads the tsconfig.json of its working directory.
  writeFileSync(join(peerWork, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', moduleResolution: 'node10', strict: true, esModuleInterop: true, skipLibCheck: true } }));
  const args = generator === 'sap'
    ? [join(peersDir, 'node_modules/@sap-cloud-sdk/generator/dist/cli.js'), '-i', input, '-o', output, '--skipValidation', '--overwrite']
    : [join(peersDir, 'node_modules/@odata2ts/odata2ts/lib/run-cli.js'), '-s', join(input, 'service.edmx'), '-o', output, '-m', 'service', '-e', 'ts'];
  const t0 = performance.now();
  const res = spawnSync(process.execPath, args, { cwd: peerWork, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - t0;
  if (res.error || res.status !== 0) {
    const why = res.error ? `did not finish within ${timeoutMs / 1000} s` : `exit ${res.status}: ${lastLine(res.stderr || res.stdout)}`;
    return { ok: false, ms, why };
  }
  const written = files(output).filter((f) => f.endsWith('.ts'));
  const entry = generator === 'sap' ? written.find((f) => f.endsWith('/index.ts')) : written.find((f) => f.endsWith('Service.ts'));
  if (entry === undefined) return { ok: false, ms, why: 'wrote no entry module' };
  return { ok: true, ms, bytes: bytesIn(output), entry };
}

const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');

function lastLine(text: string): string {
  const lines = text.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('at '));
  return (lines.find((l) => /error/i.test(l)) ?? lines.at(-1) ?? '').replace(ANSI, '').slice(0, 160);
}

/** A preload that prints the process's peak RSS (VmHWM) when tsc exits. */
function rssProbe(dir: string): string {
  const file = join(dir, 'peak-rss.cjs');
  writeFileSync(file, "process.on('exit', () => { try { const m = /VmHWM:\\s+(\\d+)/.exec(require('fs').readFileSync('/proc/self/status', 'utf8')); process.stderr.write('PEAK_RSS_KB ' + (m ? m[1] : '0') + '\\n'); } catch {} });\n");
  return file;
}

/**
 * `tsc --noEmit --extendedDiagnostics` of `main` with `compilerOptions` (strict), run by the TypeScript at
 * `tscPath`; time and heap as tsc reports them, peak RSS of its process, and its error count.
 */
export function tsc(dir: string, main: string, compilerOptions: Record<string, unknown>, tscPath: string): TscRun {
  const config = join(dir, `tsconfig.${main.replace(/[^\w]/g, '_')}.json`);
  writeFileSync(config, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: true, ...compilerOptions }, files: [relative(dir, main)] }));
  const run = spawnSync(process.execPath, ['--require', rssProbe(dir), tscPath, '-p', config, '--extendedDiagnostics'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const text = `${run.stdout}\n${run.stderr}`;
  const num = (l: string): number => Number(new RegExp(`^${l}:\\s+([\\d.]+)`, 'm').exec(text)?.[1] ?? NaN);
  const errors = text.split('\n').filter((l) => /error TS\d+/.test(l));
  return {
    seconds: num('Total time'), heapMB: num('Memory used') / 1024, types: num('Types'), peakRssMB: Number(/PEAK_RSS_KB (\d+)/.exec(text)?.[1] ?? NaN) / 1024,
    errors: errors.length, firstError: (errors[0] ?? '').replace(/^.*error (TS\d+: .{0,90}).*$/, '$1'),
  };
}

/**
 * The peer's program without generated types: a program importing the runtime packages its generated code imports
 * (`@sap-cloud-sdk/odata-v4`, `@odata2ts/odata-service`, ...), what that code costs tsc before any type of the
 * service is read. Undefined when the generated code imports no package.
 */
export function peerBaselineProgram(slug: string, generator: Generator, entry: string): string | undefined {
  const packages = new Set<string>();
  for (const f of files(dirname(entry)).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(f, 'utf8').matchAll(/\bfrom\s+['"]([^'".][^'"]*)['"]/g)) packages.add(m[1]!);
  }
  if (packages.size === 0) return undefined;
  const main = join(peerWork, `use-${generator}-${slug}-untyped.ts`);
  const names = [...packages].sort();
  writeFileSync(main, `${names.map((p, i) => `import * as m${i} from '${p}';`).join('\n')}\nexport const runtime = [${names.map((_, i) => `m${i}`).join(', ')}];\n`);
  return main;
}

/**
 * {@link tsc} `runs` times: the fastest run's time, the smallest peak RSS (a loaded machine only adds to either;
 * the type count is the same every time).
 */
export function tscBest(runs: number, ...args: Parameters<typeof tsc>): TscRun {
  const all = Array.from({ length: Math.max(1, runs) }, () => tsc(...args));
  return { ...all[0]!, seconds: Math.min(...all.map((r) => r.seconds)), peakRssMB: Math.min(...all.map((r) => r.peakRssMB)) };
}

/** The program tsc checks for a peer's output: it imports everything the generated entry module exports. */
export function peerProgram(slug: string, generator: Generator, entry: string): string {
  const main = join(peerWork, `use-${generator}-${slug}.ts`);
  writeFileSync(main, `export * from './${relative(peerWork, entry).replace(/\.ts$/, '')}';\n`);
  return main;
}
