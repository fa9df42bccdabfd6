// The OData test server (packages/testkit) in its own process, for bench/odata-peers.ts: a page cache large
// enough for every variant the peers ask for (v4 with and without IEEE754Compatible, next links and top/skip
// pages, v2), so no client pays for serializing what another one evicted.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The repository root, from bench/peers/ (source) or bench/.out/ (compiled): two levels up either way.
const root = fileURLToPath(new URL('../..', import.meta.url));

export async function startPeerServer(products: number, pageSize: number): Promise<{ v4: string; v2: string; child: ChildProcess }> {
  const env = { ...process.env, PORT: '0', PRODUCTS: String(products), PAGE_SIZE: String(pageSize), CACHE_BYTES: String(1024 ** 3) };
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/testkit/src/odata/main.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const roots = await new Promise<RegExpExecArray>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`OData server exited with ${code}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /OData v4: (\S+)\s+OData v2: (\S+)/.exec(out);
      if (m) resolve(m);
    });
  });
  child.removeAllListeners('exit');
  return { v4: roots[1]!, v2: roots[2]!, child };
}
