// sluiceCLI: the `sluice` executable bundled from source once per process, for tests, benches and the demo.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The repository root: the folder above this file that holds `packages/cli/src/sluice.ts`. */
function repositoryRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'packages', 'cli', 'src', 'sluice.ts'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('sluiceCLI: cannot find packages/cli/src/sluice.ts above this file');
    dir = up;
  }
  return dir;
}

/** What a finished `sluice` run printed and how it ended. */
export interface CLIResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** The bundled `sluice`: its path, and helpers to start it with node. */
export interface SluiceCLI {
  /**
   * Absolute path of the bundled executable (ESM, dependencies included). Each command's implementation is
   * a chunk beside it in {@link dir}, loaded when that command runs, as in the published package.
   */
  readonly path: string;
  /** The folder of the entry and its chunks: copy the whole folder to run the bundle elsewhere. */
  readonly dir: string;
  /** Starts `node <path> ...args`; stdout and stderr are pipes unless `options.stdio` says otherwise. */
  spawn(args: readonly string[], options?: SpawnOptions): ChildProcess;
  /** Runs to the end and collects the output (`env` is added to the parent's environment). */
  run(args: readonly string[], options?: { env?: Record<string, string | undefined>; input?: string; cwd?: string }): Promise<CLIResult>;
}

let bundle: Promise<string> | undefined;

/**
 * Bundles `packages/cli/src/sluice.ts` with esbuild (sluice's packages from source, npm dependencies
 * included; code splitting, so a command loads only what it uses) into a temporary folder, once per
 * process, and returns a handle to run it as a child.
 *
 * @example
 * ```ts
 * const cli = await sluiceCLI();
 * const { code, stdout } = await cli.run(['count', srv.v4, 'Products']);
 * ```
 */
export async function sluiceCLI(): Promise<SluiceCLI> {
  bundle ??= (async () => {
    const root = repositoryRoot();
    const dir = await mkdtemp(join(tmpdir(), 'sluice-cli-'));
    // The bundle lives as long as this process.
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await build({
      entryPoints: { sluice: join(root, 'packages', 'cli', 'src', 'sluice.ts') },
      outdir: dir,
      outExtension: { '.js': '.mjs' },
      splitting: true,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      tsconfig: join(root, 'tsconfig.json'),
      // CommonJS dependencies (commander, cli-progress) call require(): give each ESM file of the bundle one.
      banner: { js: "import { createRequire as __sluiceRequire } from 'node:module'; const require = __sluiceRequire(import.meta.url);" },
      logLevel: 'error',
    });
    return dir;
  })();
  const dir = await bundle;
  const path = join(dir, 'sluice.mjs');
  const start = (args: readonly string[], options: SpawnOptions = {}): ChildProcess =>
    spawn(process.execPath, [path, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  return {
    path,
    dir,
    spawn: start,
    run(args, options = {}) {
      const child = start(args, {
        env: { ...process.env, ...options.env },
        stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
        ...(options.cwd ? { cwd: options.cwd } : {}),
      });
      if (options.input !== undefined) child.stdin!.end(options.input);
      return collect(child);
    },
  };
}

/** Waits for a child to end and collects what it printed. */
export function collect(child: ChildProcess): Promise<CLIResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (s: string) => { stdout += s; });
  child.stderr?.setEncoding('utf8').on('data', (s: string) => { stderr += s; });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
