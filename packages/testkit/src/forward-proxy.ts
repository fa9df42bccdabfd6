import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Options of {@link startForwardProxy}. */
export interface ForwardProxyOptions {
  /** Require `Proxy-Authorization: Basic` with these credentials (the proxy answers 407 otherwise). */
  auth?: { username: string; password: string };
}

/** A real forward proxy (tinyproxy) on 127.0.0.1, with its log. */
export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`, without credentials. */
  readonly origin: string;
  readonly port: number;
  /** `http://user:pass@127.0.0.1:<port>` when `auth` is set, else {@link ForwardProxy.origin}. */
  readonly url: string;
  /** `CONNECT` requests the proxy received so far (waits until the proxy has logged everything before the call). */
  connects(): Promise<number>;
  /** Every log line so far (same wait). */
  log(): Promise<string>;
  /** Stops the proxy and deletes its files. */
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const READY = 'Accepting connections';
const CONNECT_LINE = /Request \(file descriptor \d+\): CONNECT /g;

/**
 * Starts tinyproxy (from apt: `apt-get install tinyproxy`) in the foreground on a free port of
 * 127.0.0.1, logging every request it receives. Any target port may be tunnelled with `CONNECT`.
 * `connects()` and `log()` first send the proxy a marker request and wait for its log line, so every
 * request made before the call is counted without a sleep.
 *
 * @example
 * ```ts
 * const proxy = await startForwardProxy({ auth: { username: 'alice', password: 'proxy-pass' } })
 * const client = createClient({ baseURL: api.origin, proxy: proxy.url })
 * expect(await proxy.connects()).toBe(1)
 * ```
 */
export async function startForwardProxy(options: ForwardProxyOptions = {}): Promise<ForwardProxy> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-proxy-'));
  for (let tries = 1; ; tries++) {
    const port = await freePort();
    try {
      return await launch(dir, port, options);
    } catch (error) {
      // Another process may have taken the port between our probe and tinyproxy's bind.
      if (tries === 3) {
        await rm(dir, { recursive: true, force: true });
        throw error;
      }
    }
  }
}

async function launch(dir: string, port: number, options: ForwardProxyOptions): Promise<ForwardProxy> {
  const config = join(dir, 'tinyproxy.conf');
  const lines = [
    `Port ${port}`, 'Listen 127.0.0.1', 'Timeout 60', 'LogLevel Info', 'MaxClients 64',
    'Allow 127.0.0.1', 'DisableViaHeader Yes',
  ];
  if (options.auth) lines.push(`BasicAuth ${options.auth.username} ${options.auth.password}`);
  await writeFile(config, lines.join('\n') + '\n');
  const child: ChildProcess = spawn('tinyproxy', ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const kill = (): void => void child.kill();
  process.once('exit', kill);
  let log = '';
  const watchers = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    log += chunk.toString('utf8');
    for (const watch of watchers) watch();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const until = (seen: () => boolean): Promise<void> => new Promise((resolve, reject) => {
    const check = (): void => {
      if (!seen()) return;
      watchers.delete(check);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (): void => {
      watchers.delete(check);
      reject(new Error(`tinyproxy exited: ${log.slice(-500)}`));
    };
    watchers.add(check);
    child.once('exit', onExit);
    check();
  });
  child.once('error', () => undefined);
  try {
    await until(() => log.includes(READY));
  } catch (error) {
    process.off('exit', kill);
    throw error;
  }

  let marks = 0;
  /** Sends a request the proxy logs, and waits for that line: everything logged before it is in `log`. */
  const sync = async (): Promise<void> => {
    const marker = `sync-${++marks}.invalid`;
    const logged = until(() => log.includes(marker));
    await new Promise<void>((resolve) => {
      const req = request({ host: '127.0.0.1', port, method: 'GET', path: `http://${marker}/` }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', () => resolve());
      req.end();
    });
    await logged;
  };

  const origin = `http://127.0.0.1:${port}`;
  const auth = options.auth;
  return {
    origin,
    port,
    url: auth ? `http://${encodeURIComponent(auth.username)}:${encodeURIComponent(auth.password)}@127.0.0.1:${port}` : origin,
    async connects() {
      await sync();
      return log.match(CONNECT_LINE)?.length ?? 0;
    },
    async log() {
      await sync();
      return log;
    },
    async close() {
      process.off('exit', kill);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill();
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
