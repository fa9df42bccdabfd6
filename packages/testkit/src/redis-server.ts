import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

/** A real redis-server on 127.0.0.1 for tests: no persistence, a temporary directory, a free port. */
export interface RedisTestServer {
  /** `redis://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Whether the server process runs now. */
  readonly running: boolean;
  /** Stops the server (an outage); {@link RedisTestServer.start} brings it back on the same port, empty. */
  stop(): Promise<void>;
  /** Starts it again after {@link RedisTestServer.stop}. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

/**
 * Starts `redis-server` (from PATH) on a free 127.0.0.1 port. The server runs under a shell that stops it
 * when this process's pipe closes, so it never outlives the test run, even when the runner is killed.
 * Throws a clear error when redis-server is not installed.
 */
export async function startRedisServer(): Promise<RedisTestServer> {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).error !== undefined) {
    throw new Error('redis-server is not on PATH: install it (apt-get install -y redis-server) to run the @sluice/redis tests');
  }
  const dir = mkdtempSync(join(tmpdir(), 'sluice-redis-'));
  let port = await freePort();
  let child: ChildProcess | undefined;

  const start = async (): Promise<void> => {
    if (child !== undefined) return;
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'no', '--loglevel', 'warning'];
    // A watcher waits on the shell's stdin: when this process dies the pipe closes and the server is
    // stopped. The shell itself exits with the server, so a failed start (port taken) shows at once.
    const script = 'exec 3<&0; redis-server "$@" & pid=$!; (cat <&3 >/dev/null; kill $pid 2>/dev/null) & trap "kill $pid 2>/dev/null" TERM; wait $pid';
    const proc = spawn('sh', ['-c', script, 'sh', ...args], { stdio: ['pipe', 'ignore', 'inherit'] });
    child = proc;
    try {
      await waitForPing(port, proc);
    } catch (error) {
      child = undefined;
      proc.kill('SIGTERM');
      throw error;
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    child = undefined;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.stdin?.end();
    await exited;
  };

  // The free port may be taken by someone else before redis-server binds it: try another.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      port = await freePort();
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    get running() {
      return child !== undefined;
    },
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the server answers PING (raw RESP over TCP), or rejects when it exits first. */
async function waitForPing(port: number, proc: ChildProcess): Promise<void> {
  const { connect } = await import('node:net');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`redis-server exited with code ${proc.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.setTimeout(500);
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
      socket.once('error', () => resolve(false));
      socket.once('timeout', () => {
        socket.destroy();
        resolve(false);
      });
    });
    if (ok) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server did not answer on port ${port} within 15 s`);
}
