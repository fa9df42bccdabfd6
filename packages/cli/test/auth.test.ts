import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearerAuthorizer, collectCLI, OIDC_CLIENTS, sluiceCLI, startODataServer, startOIDCProvider,
  type ODataTestServer, type OIDCProvider, type SluiceCLI,
} from '@sluice/testkit';
import { signInURL } from './helpers.js';

let cli: SluiceCLI;
let op: OIDCProvider;
let guarded: ODataTestServer;
let basic: ODataTestServer;
let bearer: ODataTestServer;
const SECRET_TOKEN = 'static-token-5f1e9c';
const PASSWORD = 'pa55-w0rd-q7';

beforeAll(async () => {
  [cli, op] = await Promise.all([sluiceCLI(), startOIDCProvider()]);
  [guarded, basic, bearer] = await Promise.all([
    startODataServer({ products: 250, pageSize: 100, authorize: bearerAuthorizer(op.issuer) }),
    startODataServer({ products: 5, authorize: (req) => req.headers.authorization === `Basic ${Buffer.from(`alice:${PASSWORD}`).toString('base64')}` }),
    startODataServer({ products: 5, authorize: (req) => req.headers.authorization === `Bearer ${SECRET_TOKEN}` }),
  ]);
});
afterAll(async () => {
  await Promise.all([guarded.close(), basic.close(), bearer.close()]);
  await op.close();
});

const { clientId, clientSecret } = OIDC_CLIENTS.service;
const count = (stdout: string): number => stdout.split('\n').filter(Boolean).length;

describe('sluice auth', () => {
  it('client credentials from SLUICE_* variables: one token for every page, the secret never printed', async () => {
    const grants = op.grants.length;
    const r = await cli.run(['export', guarded.v4, 'Products', '--verbose'], {
      env: { SLUICE_CLIENT_ID: clientId, SLUICE_CLIENT_SECRET: clientSecret, SLUICE_TOKEN_URL: op.tokenURL },
    });
    expect(r.code).toBe(0);
    expect(count(r.stdout)).toBe(250);
    expect(op.grants.slice(grants)).toEqual([{ grantType: 'client_credentials', clientId }]);
    expect(r.stderr).toContain(`sluice: auth: OAuth client credentials as ${clientId} at ${op.tokenURL}`);
    expect(r.stderr).toMatch(/^sluice: oauth\.token\.response grantType=client_credentials .*ok=true status=200/m);
    expect(r.stderr).toMatch(/^sluice: GET http:\/\/127\.0\.0\.1:\d+\/odata\/v4\/demo\/Products -> 200$/m);
    expect(r.stderr).not.toContain(clientSecret);
    expect(guarded.requests.filter((q) => q.url.includes('/Products')).every((q) => q.headers.authorization?.startsWith('Bearer '))).toBe(true);
  });

  it('a wrong client secret exits 1 with the token endpoint error and without the secret', async () => {
    const r = await cli.run(['count', guarded.v4, 'Products', '--client-id', clientId, '--client-secret', 'wrong-secret-8d2a', '--token-url', op.tokenURL]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sluice: Token request \(client_credentials\) to .* failed.*invalid_client/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).not.toContain('wrong-secret-8d2a');
  });

  it('no credentials for a guarded service exit 1 with a hint about credentials', async () => {
    const r = await cli.run(['count', guarded.v4, 'Products', '--version', '4']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/status 401.*\(check the credentials/);
  });

  it('a bearer token from SLUICE_TOKEN is sent as Authorization: Bearer, a wrong one is refused without being printed', async () => {
    const ok = await cli.run(['export', bearer.v4, 'Products', '-q', '--verbose'], { env: { SLUICE_TOKEN: SECRET_TOKEN } });
    expect(ok.code).toBe(0);
    expect(count(ok.stdout)).toBe(5);
    // Each response, and the events --verbose shows (the detected OData version).
    expect(ok.stderr).toMatch(/^sluice: auth: bearer token \(hidden\)\n(sluice: (GET \S+ -> 200|odata\.version\.detected version=4\.0 .*)\n)+$/);
    expect(ok.stderr).not.toContain(SECRET_TOKEN);
    const wrong = await cli.run(['export', bearer.v4, 'Products', '--token', 'not-the-token-31c'], { env: { SLUICE_TOKEN: undefined } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('status 401');
    expect(wrong.stderr).not.toContain('not-the-token-31c');
  });

  it('Basic auth: --user with the password from SLUICE_PASSWORD', async () => {
    const r = await cli.run(['count', basic.v4, 'Products', '--user', 'alice', '--verbose'], { env: { SLUICE_PASSWORD: PASSWORD } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('5\n');
    expect(r.stderr).toContain('Basic as alice (password hidden)');
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('authorization code with PKCE: prints the sign-in URL, takes the code on a loopback callback, then exports', async () => {
    const { clientId: publicId } = OIDC_CLIENTS.publicApp;
    const child = cli.spawn(['export', guarded.v4, 'Products', '--top', '20', '--client-id', publicId, '--token-url', op.tokenURL, '--auth-url', op.authorizationURL, '--scope', 'openid', '--scope', 'api:read', '--no-browser']);
    const done = collectCLI(child);
    const signIn = await signInURL(child);
    const url = new URL(signIn);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const callback = await op.login(signIn);
    const page = await fetch(callback);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in');
    const r = await done;
    expect(r.code).toBe(0);
    expect(count(r.stdout)).toBe(20);
    expect(op.grants.at(-1)).toEqual({ grantType: 'authorization_code', clientId: publicId });
    expect(r.stderr).not.toContain(new URL(callback).searchParams.get('code')!);
  });

  it('a TLS file that cannot be read fails before the browser sign-in starts', async () => {
    const missing = `${process.cwd()}/no-such-ca-7c1d.pem`;
    const r = await cli.run(['count', guarded.v4, 'Products', '--client-id', OIDC_CLIENTS.publicApp.clientId, '--token-url', op.tokenURL, '--auth-url', op.authorizationURL, '--no-browser', '--ca', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--ca could not be read from ${missing} (ENOENT)`);
    expect(r.stderr).not.toContain(op.authorizationURL);
  });

  it('a refused sign-in (error on the callback) exits 1 with the server error', async () => {
    const child = cli.spawn(['count', guarded.v4, 'Products', '--client-id', OIDC_CLIENTS.publicApp.clientId, '--token-url', op.tokenURL, '--auth-url', op.authorizationURL, '--no-browser']);
    const done = collectCLI(child);
    let seen = '';
    const [redirect, state] = await new Promise<[string, string]>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /^\s+(http:\/\/\S+\/auth\?\S+)$/m.exec(seen);
        if (m) {
          const url = new URL(m[1]!);
          resolve([url.searchParams.get('redirect_uri')!, url.searchParams.get('state')!]);
        }
      });
    });
    const page = await fetch(`${redirect}?error=access_denied&error_description=user+said+no&state=${state}`);
    expect(page.status).toBe(400);
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('sluice: Authorization failed: access_denied (user said no)');
  });

  it('Ctrl-C while waiting for the sign-in exits 130 and closes the loopback listener', async () => {
    const child = cli.spawn(['count', guarded.v4, 'Products', '--client-id', OIDC_CLIENTS.publicApp.clientId, '--token-url', op.tokenURL, '--auth-url', op.authorizationURL, '--no-browser']);
    const done = collectCLI(child);
    let seen = '';
    await new Promise<void>((resolve) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/\/auth\?\S+$/m.test(seen)) resolve();
      });
    });
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
  });
});
