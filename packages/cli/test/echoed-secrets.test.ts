import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectCLI, OIDC_CLIENTS, sluiceCLI, startOIDCProvider, startServer, type OIDCProvider, type SluiceCLI, type TestServer } from '@sluice/testkit';
import { signInURL } from './helpers.js';

// Issue 29: a service answering 500 with `the credential <t> is not valid` got <t> printed, for every auth method.
let cli: SluiceCLI;
let op: OIDCProvider;
let service: TestServer;
const TOKEN = 'cli-29-bearer-7a1b2c3d/+x';
const USER = 'alice';
const PASSWORD = 'ck2Z+/p4ss wörd';
const CLIENT_SECRET = 'cli-29-client-secret-9f8e';
const ISSUED = 'cli-29-issued-access-token-4d5e';

/** Every form of `value` a server may echo. */
function forms(value: string): string[] {
  return [value, encodeURIComponent(value), Buffer.from(value).toString('base64'), JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/')];
}

function expectNone(text: string, ...values: string[]): void {
  for (const value of values) for (const form of forms(value)) expect(text, form).not.toContain(form);
}

/** The credential of a request as the server would echo it: the bearer token, or the decoded Basic `user:password`. */
function credentialOf(req: { headers: { authorization?: string | undefined } }): string {
  const [scheme = '', value = ''] = (req.headers.authorization ?? '').split(' ');
  return scheme === 'Basic' ? Buffer.from(value, 'base64').toString('utf8') : value;
}

/** A token endpoint (for client credentials) and an OData service that refuses every credential, echoing it. */
function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (req.url?.startsWith('/token')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ access_token: ISSUED, token_type: 'Bearer', expires_in: 3600 }));
    return;
  }
  const credential = credentialOf(req);
  const message = `the credential ${credential} is not valid (${encodeURIComponent(credential)}, ${Buffer.from(credential).toString('base64')}); secret ${new URLSearchParams(body).get('client_secret') ?? CLIENT_SECRET}`;
  res.writeHead(500, { 'content-type': 'application/json', 'odata-version': '4.0', 'www-authenticate': `Bearer error_description="${credential}"` });
  res.end(JSON.stringify({ error: { code: '500', message } }).replace(/\//g, '\\/'));
}

beforeAll(async () => {
  [cli, op, service] = await Promise.all([sluiceCLI(), startOIDCProvider(), startServer(handle)]);
});
afterAll(async () => {
  await service.close();
  await op.close();
});

const url = (): string => `${service.origin}/odata/v4/demo/`;
const args = (): string[] => ['count', url(), 'Products', '--version', '4', '--verbose'];

describe('a credential the service echoes is never printed', () => {
  it('SLUICE_TOKEN (bearer)', async () => {
    const r = await cli.run(args(), { env: { SLUICE_TOKEN: TOKEN } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the credential [REDACTED] is not valid');
    expectNone(r.stdout + r.stderr, TOKEN);
  }, 60_000);

  it('SLUICE_TOKEN also in the service URL: not in the --verbose request lines nor the error', async () => {
    const r = await cli.run(['count', `${service.origin}/odata/${encodeURIComponent(TOKEN)}/`, 'Products', '--version', '4', '--verbose'], { env: { SLUICE_TOKEN: TOKEN } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sluice: GET http:\/\/127\.0\.0\.1:\d+\/odata\/\[REDACTED\]\/Products\/\$count -> 500$/m);
    expectNone(r.stdout + r.stderr, TOKEN);
  }, 60_000);

  it('SLUICE_USER and SLUICE_PASSWORD (Basic): neither user:password nor the password', async () => {
    const r = await cli.run(args(), { env: { SLUICE_USER: USER, SLUICE_PASSWORD: PASSWORD } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the credential [REDACTED] is not valid');
    expectNone(r.stdout + r.stderr, `${USER}:${PASSWORD}`, PASSWORD);
  }, 60_000);

  it('client credentials: neither the client secret nor the token obtained', async () => {
    const r = await cli.run(args(), { env: { SLUICE_CLIENT_ID: 'svc', SLUICE_CLIENT_SECRET: CLIENT_SECRET, SLUICE_TOKEN_URL: `${service.origin}/token` } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the credential [REDACTED] is not valid');
    expectNone(r.stdout + r.stderr, CLIENT_SECRET, ISSUED);
  }, 60_000);

  it('authorization code with PKCE: not the token the sign-in obtained', async () => {
    const { clientId } = OIDC_CLIENTS.publicApp;
    const child = cli.spawn([...args(), '--client-id', clientId, '--token-url', op.tokenURL, '--auth-url', op.authorizationURL, '--scope', 'openid', '--scope', 'api:read', '--no-browser']);
    const done = collectCLI(child);
    const signIn = await signInURL(child);
    const callback = await op.login(signIn);
    expect((await fetch(callback)).status).toBe(200);
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('the credential [REDACTED] is not valid');
    const issued = service.requests.map(credentialOf).filter((c) => c !== '' && c !== ISSUED);
    expect(issued.length).toBeGreaterThan(0);
    expectNone(r.stdout + r.stderr, ...new Set(issued), new URL(callback).searchParams.get('code')!);
  }, 60_000);
});
