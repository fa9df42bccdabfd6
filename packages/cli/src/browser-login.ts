import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildAuthorizationURL, verifyCallback, type OAuth2Config } from '@sluice/oauth';
import type { Terminal } from './terminal.js';

/** What the sign-in produced: the code to exchange and the PKCE verifier that goes with it. */
export interface BrowserLogin {
  code: string;
  codeVerifier: string | undefined;
  redirectURL: string;
}

/** The command that opens a URL in the desktop's browser, when there is a desktop. */
function browserCommand(env: Terminal['env']): string | undefined {
  if (process.platform === 'darwin') return 'open';
  if (process.platform === 'win32') return 'explorer';
  return env['DISPLAY'] || env['WAYLAND_DISPLAY'] ? 'xdg-open' : undefined;
}

function tryOpen(url: string, terminal: Terminal): void {
  const command = browserCommand(terminal.env);
  if (command === undefined) return;
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', () => undefined);
  child.unref();
}

const PAGE = (text: string): string => `<!doctype html><meta charset="utf-8"><title>sluice</title><p>${text}</p>`;

/**
 * Authorization code with PKCE for a command-line tool (RFC 8252): listens on 127.0.0.1 on a free port,
 * sends the user to the authorization URL (opening the browser when there is one, printing the URL
 * always), and resolves with the code once the server redirects back to the loopback callback.
 */
export async function authorizeInBrowser(
  config: OAuth2Config, options: { terminal: Terminal; openBrowser: boolean; signal: AbortSignal; timeoutMs?: number },
): Promise<BrowserLogin> {
  const { terminal, signal } = options;
  let settle: { resolve: (code: string) => void; reject: (error: unknown) => void } | undefined;
  const codePromise = new Promise<string>((resolve, reject) => { settle = { resolve, reject }; });
  let expectedState = '';
  // RFC 8252 7.3: a loopback redirect on an ephemeral port; RFC 8252 8.3: the IP literal, not localhost.
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    try {
      const code = verifyCallback(url.searchParams, expectedState);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Signed in. You can close this tab and go back to the terminal.'));
      settle?.resolve(code);
    } catch (error) {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE('Sign-in failed; see the terminal.'));
      settle?.reject(error);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const redirectURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const onAbort = (): void => settle?.reject(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => settle?.reject(new Error(`no sign-in within ${Math.round((options.timeoutMs ?? 300_000) / 1000)} s`)), options.timeoutMs ?? 300_000);
  try {
    const request = await buildAuthorizationURL({ ...config, redirectURL });
    expectedState = request.state;
    terminal.note(`sluice: sign in at this URL to continue (waiting on ${redirectURL}):\n  ${request.url}`);
    if (options.openBrowser) tryOpen(request.url, terminal);
    const code = await codePromise;
    return { code, codeVerifier: request.codeVerifier, redirectURL };
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
