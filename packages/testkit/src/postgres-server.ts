// A real PostgreSQL for tests: `initdb` into a temporary folder, then `postgres` on a free 127.0.0.1 port,
// stopped when the test process goes away. PostgreSQL refuses to run as root; as root (CI, containers)
// both run as `nobody` through setpriv(1), in a folder that user owns.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A running PostgreSQL cluster with trust authentication for the `postgres` user. */
export interface PostgresTestServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  readonly url: string;
  readonly port: number;
  /** Stops the server (fast shutdown) and removes its folder. */
  close(): Promise<void>;
}

/** The folder of `initdb` and `postgres`: PATH, or Debian's /usr/lib/postgresql/<major>/bin (newest). */
function binDir(): string {
  const onPath = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).stdout.trim();
  // A link on PATH (/usr/local/bin/initdb) points into the folder that also holds postgres and pg_isready.
  if (onPath) {
    const real = realpathSync(onPath);
    return real.slice(0, real.lastIndexOf('/'));
  }
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((d) => existsSync(join(root, d, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a)) : [];
  if (majors[0] === undefined) throw new Error('PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): apt-get install -y postgresql');
  return join(root, majors[0], 'bin');
}

/** As root: the command run as `nobody` (setpriv executes it in place, so signals reach it directly). */
function asUser(command: string[]): string[] {
  return process.getuid?.() === 0 ? ['setpriv', '--reuid=nobody', '--regid=nogroup', '--clear-groups', '--', ...command] : command;
}

function check(result: SpawnSyncReturns<string>, what: string): void {
  if (result.status !== 0) throw new Error(`${what} failed (exit ${result.status}): ${`${result.stderr}${result.stdout}`.trim().slice(-600)}`);
}

/** Resolves once the server accepts TCP connections and is past start-up, or rejects when it exits first. */
async function waitForServer(bin: string, port: number, proc: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`postgres exited with code ${proc.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
    if (open && spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres'], { stdio: 'ignore' }).status === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`postgres did not accept connections on port ${port} within 60 s`);
}

/**
 * Starts a PostgreSQL cluster in a temporary folder on a free 127.0.0.1 port: `initdb` (trust auth, user
 * `postgres`), then `postgres` under a shell that stops it when this process's pipe closes, so it never
 * outlives the test run, even when the runner is killed. `fsync` is off: the data is thrown away.
 */
export async function startPostgresServer(): Promise<PostgresTestServer> {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pg-'));
  const data = join(dir, 'data');
  if (process.getuid?.() === 0) chownSync(dir, 65534, 65534);
  const [cmd, ...args] = asUser([join(bin, 'initdb'), '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--locale=C']);
  check(spawnSync(cmd!, args, { encoding: 'utf8', cwd: dir }), 'initdb');
  let port = await freePort();
  for (let attempt = 1; ; attempt++) {
    const server = [join(bin, 'postgres'), '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'full_page_writes=off', '-c', 'max_connections=40'];
    // The watcher waits on the shell's stdin: when this process dies the pipe closes and the server gets
    // SIGINT (fast shutdown). The shell exits with the server, so a failed start shows at once.
    const script = 'exec 3<&0; "$@" & pid=$!; (cat <&3 >/dev/null; kill -INT $pid 2>/dev/null) & trap "kill -INT $pid 2>/dev/null" TERM; wait $pid';
    const proc = spawn('sh', ['-c', script, 'sh', ...asUser(server)], { stdio: ['pipe', 'ignore', 'ignore'], cwd: dir });
    try {
      await waitForServer(bin, port, proc);
      return {
        url: `postgres://postgres@127.0.0.1:${port}/postgres`,
        port,
        async close() {
          const exited = new Promise<void>((resolve) => (proc.exitCode !== null ? resolve() : proc.once('exit', () => resolve())));
          proc.stdin?.end();
          await exited;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      proc.stdin?.end();
      if (attempt >= 3) {
        rmSync(dir, { recursive: true, force: true });
        throw error;
      }
      port = await freePort();
    }
  }
}
