import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from './helpers.js';
import {
  createTestPKI, MTLS_CLIENT, sluiceCLI, startForwardProxy, startMTLSProvider, startODataServer,
  type ForwardProxy, type MTLSProvider, type ODataTestServer, type SluiceCLI, type TestPKI,
} from '@sluice/testkit';

let pki: TestPKI;
let cli: SluiceCLI;
/** https with the test CA's server certificate. */
let tlsSrv: ODataTestServer;
/** https that also requires a client certificate from the test CA (mutual TLS). */
let mtlsSrv: ODataTestServer;
let proxy: ForwardProxy;
/** oidc-provider on https with the test PKI, authenticating its client by certificate (RFC 8705). */
let op: MTLSProvider;

beforeAll(async () => {
  [pki, cli, proxy] = await Promise.all([createTestPKI(), sluiceCLI(), startForwardProxy()]);
  const server = { cert: pki.server.cert, key: pki.server.key };
  [tlsSrv, mtlsSrv, op] = await Promise.all([
    startODataServer({ products: 7, tls: server }),
    startODataServer({ products: 7, tls: { ...server, ca: pki.ca, requestCert: true, rejectUnauthorized: true } }),
    startMTLSProvider(pki),
  ]);
});
afterAll(async () => {
  await Promise.all([tlsSrv?.close(), mtlsSrv?.close(), proxy?.close(), op?.close()]);
  await pki?.close();
});

/** Runs sluice without any proxy from the environment of the test run. */
const run = (args: string[], env: Record<string, string> = {}) => cli.run(args, { env: { HTTPS_PROXY: '', HTTP_PROXY: '', ALL_PROXY: '', https_proxy: '', http_proxy: '', all_proxy: '', ...env } });
const ids = (stdout: string): number[] => stdout.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { ID: number }).ID);

describe('--ca', () => {
  it('trusts a server certificate signed by the given CA; without it the export fails with exit code 1', async () => {
    const refused = await run(['count', tlsSrv.v4, 'Products']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE.*give its CA with --ca/);
    const trusted = await run(['count', tlsSrv.v4, 'Products', '--ca', pki.caPath]);
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout.trim()).toBe('7');
  }, 60_000);

  it('names the flag and the file when the CA file cannot be used (exit code 2)', async () => {
    const missing = await run(['count', tlsSrv.v4, 'Products', '--ca', `${pki.dir}/nope.pem`]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--ca could not be read from ${pki.dir}/nope.pem (ENOENT)`);
    const notPEM = await run(['count', tlsSrv.v4, 'Products', '--ca', pki.server.keyPath]);
    expect(notPEM.code).toBe(2);
    expect(notPEM.stderr).toMatch(/--ca holds no PEM certificate/);
  }, 60_000);
});

describe('mutual TLS: --cert, --key, --pfx', () => {
  it('presents the client certificate to a server that requires one, and exports every record', async () => {
    const r = await run(['export', mtlsSrv.v4, 'Products', '--ca', pki.caPath, '--cert', pki.client.certPath, '--key', pki.client.keyPath, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(ids(r.stdout)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('is refused by that server without a client certificate (exit code 1)', async () => {
    const seen = mtlsSrv.requests.length;
    const r = await run(['export', mtlsSrv.v4, 'Products', '--ca', pki.caPath, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/requires a client certificate.*--cert\/--key or --pfx/);
    expect(mtlsSrv.requests.length).toBe(seen);
  });

  it(`opens an encrypted key with the passphrase from SLUICE_KEY_PASSPHRASE, and never prints it`, async () => {
    const args = ['count', mtlsSrv.v4, 'Products', '--ca', pki.caPath, '--cert', pki.client.certPath, '--key', pki.client.encryptedKeyPath, '--verbose'];
    const ok = await run(args, { SLUICE_KEY_PASSPHRASE: pki.passphrase });
    expect(ok.code, ok.stderr).toBe(0);
    expect(ok.stdout.trim()).toBe('7');
    expect(ok.stderr).toContain(`tls: CA ${pki.caPath}, client certificate ${pki.client.certPath}`);
    expect(ok.stderr).not.toContain(pki.passphrase);
    const missing = await run(args);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('SLUICE_KEY_PASSPHRASE is missing or wrong');
    const wrong = await run(args, { SLUICE_KEY_PASSPHRASE: 'not-the-passphrase-5d2' });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('SLUICE_KEY_PASSPHRASE is missing or wrong');
    expect(wrong.stderr).not.toContain('not-the-passphrase-5d2');
  }, 60_000);

  it('presents a PKCS#12 bundle given with --pfx', async () => {
    const r = await run(['count', mtlsSrv.v2, 'Products', '--ca', pki.caPath, '--pfx', pki.client.pfxPath], { SLUICE_KEY_PASSPHRASE: pki.passphrase });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('7');
  });

  it('refuses flags that do not go together, a key of another certificate, and has no passphrase flag (exit code 2)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['--cert', pki.client.certPath], /--cert needs --key/],
      [['--key', pki.client.keyPath], /--key needs --cert/],
      [['--pfx', pki.client.pfxPath, '--cert', pki.client.certPath, '--key', pki.client.keyPath], /--pfx does not go with --cert\/--key/],
      [['--cert', pki.client.certPath, '--key', pki.stranger.keyPath], /--key does not match the certificate/],
      [['--passphrase', 'x'], /unknown option '--passphrase'/],
    ];
    for (const [flags, message] of cases) {
      const r = await run(['count', mtlsSrv.v4, 'Products', '--ca', pki.caPath, ...flags]);
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 60_000);
});

describe('OAuth over the same TLS settings', () => {
  it('authenticates the client by its certificate at an https token endpoint when there is no secret (tls_client_auth)', async () => {
    const before = op.tokenRequests.length;
    const r = await run(
      ['count', mtlsSrv.v4, 'Products', '--ca', pki.caPath, '--cert', pki.client.certPath, '--key', pki.client.keyPath, '--verbose'],
      { SLUICE_CLIENT_ID: MTLS_CLIENT.clientId, SLUICE_TOKEN_URL: op.tokenURL },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('7');
    expect(r.stderr).toContain('authenticated by the client certificate');
    expect(op.tokenRequests.slice(before)).toEqual([
      expect.objectContaining({ clientCertificate: 'sluice-client', status: 200, form: expect.objectContaining({ grant_type: 'client_credentials', client_id: MTLS_CLIENT.clientId }) }),
    ]);
    expect(op.grants.at(-1)).toBe(MTLS_CLIENT.clientId);
    expect(mtlsSrv.requests.at(-1)!.headers.authorization).toMatch(/^Bearer /);
  });

  it('still asks for a secret or a certificate when neither is given (exit code 2)', async () => {
    const r = await run(['count', mtlsSrv.v4, 'Products', '--ca', pki.caPath], { SLUICE_CLIENT_ID: MTLS_CLIENT.clientId, SLUICE_TOKEN_URL: op.tokenURL });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/need a client secret or a client certificate.*--cert\/--key or --pfx/);
  });
});

describe('--proxy and --no-proxy', () => {
  it('tunnels through the given proxy with CONNECT', async () => {
    const before = await proxy.connects();
    const r = await run(['count', tlsSrv.v4, 'Products', '--ca', pki.caPath, '--proxy', proxy.origin]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('7');
    expect(await proxy.connects()).toBeGreaterThan(before);
  });

  it('goes direct with --no-proxy although HTTPS_PROXY names a proxy that is not there', async () => {
    const dead = await closedPort();
    const env = { HTTPS_PROXY: `http://127.0.0.1:${dead}` };
    const viaEnv = await run(['count', tlsSrv.v4, 'Products', '--ca', pki.caPath, '--retries', '0'], env);
    expect(viaEnv.code).toBe(1);
    const direct = await run(['count', tlsSrv.v4, 'Products', '--ca', pki.caPath, '--no-proxy'], env);
    expect(direct.code, direct.stderr).toBe(0);
    expect(direct.stdout.trim()).toBe('7');
  }, 60_000);

  it('refuses a proxy URL with credentials without printing them (they belong in HTTPS_PROXY)', async () => {
    const r = await run(['count', tlsSrv.v4, 'Products', '--proxy', 'http://alice:s3cret-proxy-pw@127.0.0.1:3128']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--proxy must not carry credentials');
    expect(r.stderr).toContain('HTTPS_PROXY');
    expect(r.stderr).not.toContain('s3cret-proxy-pw');
  });
});
