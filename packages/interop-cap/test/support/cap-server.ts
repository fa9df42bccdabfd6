// Starts the interop CAP service (srv/server.js) in its own child process on 127.0.0.1 and a free port.
// CAP runs on the Node binary named by SLUICE_CAP_NODE (CI sets it to the machine's Node 20, for which
// better-sqlite3 was compiled) or else on the Node running the tests. The child exits when the test
// process disconnects from it, so it stops by itself even if a test run is killed.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';

/** A running CAP service. */
export interface CapServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The OData v4 service root, `.../odata/v4/interop/`. */
  readonly v4: string;
  /** The v2 adapter's service root, `.../odata/v2/interop/`. */
  readonly v2: string;
  close(): Promise<void>;
}

/** The directory holding the CAP project (package.json with its `cds` section, db/, srv/). */
const projectRoot = fileURLToPath(new URL('../../', import.meta.url));

/** CAP's startup: model compile, SQLite deploy, seeding of 5,000 rows; generous on a loaded machine. */
const START_TIMEOUT = 60_000;

/** Starts CAP; `env` adds environment variables (CDS_* settings, for example). */
export async function startCapServer(env: Record<string, string> = {}): Promise<CapServer> {
  const node = process.env['SLUICE_CAP_NODE'] || process.execPath;
  const child = spawn(node, ['srv/server.js'], {
    cwd: projectRoot,
    env: { ...process.env, NODE_ENV: 'development', ...env },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr = (stderr + chunk).slice(-4000); });
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill(); reject(new Error(`CAP did not start within ${START_TIMEOUT} ms: ${stderr}`)); }, START_TIMEOUT);
    child.once('message', (m: { port?: number; error?: string }) => {
      clearTimeout(timer);
      if (typeof m.port === 'number') resolve(m.port);
      else reject(new Error(`CAP failed to start (node ${node}; better-sqlite3 runs only on the Node it was built for: set SLUICE_CAP_NODE to it): ${m.error ?? 'no port'}`));
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`CAP exited with ${code} before listening (node ${node}): ${stderr}`)); });
  });
  const origin = `http://127.0.0.1:${port}`;
  return { origin, v4: `${origin}/odata/v4/interop/`, v2: `${origin}/odata/v2/interop/`, close: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.disconnect?.();
    child.kill();
  });
}

/** One CAP service for the test file: started before its tests, stopped after them. */
export function useCapServer(env: Record<string, string> = {}): () => CapServer {
  let server: CapServer | undefined;
  beforeAll(async () => { server = await startCapServer(env); }, START_TIMEOUT + 5_000);
  afterAll(async () => { await server?.close(); });
  return () => {
    if (!server) throw new Error('CAP server not started');
    return server;
  };
}
