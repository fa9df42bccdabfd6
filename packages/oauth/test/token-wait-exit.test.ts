import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';

// Issue 29: a token retry waited on an unref'd timer, so a script whose service lives in another process
// exited with code 13 ("unsettled top-level await") and printed nothing.
const child = fileURLToPath(new URL('./fixtures/token-wait-child.ts', import.meta.url));
const root = fileURLToPath(new URL('../../../', import.meta.url));
let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function serve(...args: Parameters<typeof startServer>): Promise<TestServer> {
  const server = await startServer(...args);
  servers.push(server);
  return server;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Runs the child script; resolves with its exit code and output. */
async function runChild(tokenURL: string, service: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, tokenURL, service], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  proc.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const code = await new Promise<number | null>((resolve) => proc.on('close', resolve));
  return { code, stdout, stderr };
}

describe('a script waiting on a token retry does not exit silently', () => {
  it('token URL on a closed port: the request rejects with TokenRequestError', async () => {
    const api = await serve((_req, res) => sendJSON(res, 200, {}));
    const result = await runChild(`http://127.0.0.1:${await closedPort()}/token`, api.origin);
    expect(result.stdout).toMatch(/^rejected TokenRequestError: /);
    expect(result.code).toBe(2);
    expect(api.requests).toHaveLength(0);
  }, 30_000);

  it('token endpoint answering 503: the request rejects after the retries', async () => {
    const idp = await serve((_req, res) => sendJSON(res, 503, { error: 'temporarily_unavailable' }));
    const api = await serve((_req, res) => sendJSON(res, 200, {}));
    const result = await runChild(`${idp.origin}/token`, api.origin);
    expect(result.stdout).toMatch(/^rejected TokenRequestError: .*503/);
    expect(result.code).toBe(2);
    expect(idp.requests).toHaveLength(3);
  }, 30_000);

  it('token endpoint resetting the connection: the request rejects after the retries', async () => {
    const idp = await serve((req) => { req.socket.destroy(); });
    const api = await serve((_req, res) => sendJSON(res, 200, {}));
    const result = await runChild(`${idp.origin}/token`, api.origin);
    expect(result.stdout).toMatch(/^rejected TokenRequestError: /);
    expect(result.code).toBe(2);
  }, 30_000);

  it('a 401 renews the token after the floor between token requests and resends', async () => {
    let issued = 0;
    const idp = await serve((_req, res) => sendJSON(res, 200, { access_token: `tok-${++issued}`, token_type: 'Bearer', expires_in: 3600 }));
    const api = await serve((req, res) => sendJSON(res, req.headers.authorization === 'Bearer tok-2' ? 200 : 401, {}));
    const result = await runChild(`${idp.origin}/token`, api.origin);
    expect(result.stdout).toBe('status 200\n');
    expect(result.code).toBe(0);
    expect(idp.requests).toHaveLength(2);
  }, 30_000);
});
