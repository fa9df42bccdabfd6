import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestPKI, type TestPKI } from '@sluice/testkit';
import { ConfigError, createClient, FetchTransport, UndiciTransport, type ClientOptions } from '@sluice/core';

let pki: TestPKI;
beforeAll(async () => {
  pki = await createTestPKI();
});
afterAll(() => pki.close());
const savedProxy = process.env['HTTPS_PROXY'];
afterEach(() => {
  if (savedProxy === undefined) delete process.env['HTTPS_PROXY'];
  else process.env['HTTPS_PROXY'] = savedProxy;
});

/** The ConfigError `createClient(options)` throws, after checking that nothing secret is in it. */
function configError(options: ClientOptions, ...secrets: string[]): ConfigError {
  let error: unknown;
  try {
    void createClient(options).close();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  const text = `${(error as Error).message} ${String((error as Error).stack)}`;
  for (const secret of secrets) expect(text).not.toContain(secret);
  return error as ConfigError;
}

describe('bad proxy settings fail at construction', () => {
  it('a proxy URL with a scheme other than http or https', () => {
    const error = configError({ proxy: 'ftp://user:hunter2-secret@proxy.corp:21' }, 'hunter2-secret');
    expect(error.option).toBe('proxy');
    expect(error.message).toBe('proxy must use http or https (CONNECT tunnels carry https traffic), got ftp');
  });

  it('a proxy value that is not a URL, without repeating it', () => {
    const error = configError({ proxy: 'http://user:p@ss w0rd@[bad' }, 'w0rd');
    expect(error.message).toBe('proxy is not a valid proxy URL');
  });

  it('a proxy URL with a path', () => {
    expect(configError({ proxy: 'http://proxy.corp:3128/pac' }).message).toContain('without a path');
  });

  it('a bad HTTPS_PROXY, naming the variable', () => {
    process.env['HTTPS_PROXY'] = 'socks4://user:env-secret-3@proxy.corp:1080';
    const error = configError({}, 'env-secret-3');
    expect(error.option).toMatch(/^HTTPS_PROXY \(environment/);
    expect(error.message).toContain('got socks4');
  });

  it('a proxy that is neither a string nor false', () => {
    expect(configError({ proxy: 3128 as unknown as string }).option).toBe('proxy');
  });

  it('proxy or tls together with a transport of your own', () => {
    const transport = new UndiciTransport({ proxy: false });
    expect(configError({ transport, proxy: 'http://proxy.corp:3128' }).message).toContain('give it to the transport you pass');
    expect(configError({ transport, tls: { ca: pki.ca } }).option).toBe('tls');
    void transport.close();
  });

  it.each([
    ['httpsProxy', 'did you mean proxy?'],
    ['ca', 'did you mean tls?'],
    ['rejectUnauthorized', 'did you mean tls (insecureSkipVerify)?'],
  ])('points %s, as other clients name it, to the sluice option', (key, hint) => {
    expect(configError({ [key]: 'x' } as ClientOptions).message).toBe(`${key} is not a known option; ${hint}`);
  });

  it('accepts a host:port without a scheme, as curl does', () => {
    const c = createClient({ proxy: 'proxy.corp:3128' });
    void c.close();
  });
});

describe('bad TLS settings fail at construction, naming the problem and nothing secret', () => {
  it('an unreadable certificate file, naming the option and the path', () => {
    const path = `${pki.dir}/missing.pem`;
    const error = configError({ tls: { cert: { path }, key: pki.client.key } }, pki.client.key);
    expect(error.option).toBe('tls.cert');
    expect(error.message).toBe(`tls.cert could not be read from ${path} (ENOENT)`);
  });

  it('a key that does not match the certificate', () => {
    const error = configError({ tls: { cert: pki.client.cert, key: pki.stranger.key } }, pki.stranger.key, 'BEGIN PRIVATE KEY');
    expect(error.option).toBe('tls.key');
    expect(error.message).toBe('tls.key does not match the certificate in cert');
  });

  it('an encrypted key with a wrong passphrase', () => {
    const error = configError({ tls: { cert: pki.client.cert, key: pki.client.encryptedKey, passphrase: 'not-it-42' } }, 'not-it-42');
    expect(error.option).toBe('tls.passphrase');
  });

  it('a pfx bundle with a wrong passphrase', () => {
    expect(configError({ tls: { pfx: pki.client.pfx, passphrase: 'nope-99' } }, 'nope-99').option).toBe('tls.passphrase');
  });

  it('text that is not PEM, with a hint to pass a path', () => {
    const error = configError({ tls: { ca: 'certs/corp-root.pem' } });
    expect(error.message).toBe('tls.ca is not PEM text; to read a file, pass { path: "..." }');
  });

  it('a CA that holds no parseable certificate', () => {
    const error = configError({ tls: { ca: '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----' } });
    expect(error.message).toBe('tls.ca holds a certificate that cannot be parsed');
  });

  it('a certificate without its key', () => {
    expect(configError({ tls: { cert: pki.client.cert } }).message).toContain('tls.key is missing');
  });

  it('pfx together with cert and key', () => {
    expect(configError({ tls: { pfx: pki.client.pfx, cert: pki.client.cert, key: pki.client.key } }).option).toBe('tls.pfx');
  });

  it('an unknown key, pointing to the insecure option by name', () => {
    const error = configError({ tls: { rejectUnauthorized: false } as never });
    expect(error.message).toBe('tls.rejectUnauthorized is not an option of tls; did you mean tls.insecureSkipVerify?');
  });

  it('a minVersion Node would not accept as a floor', () => {
    expect(configError({ tls: { minVersion: 'TLSv1' as never } }).option).toBe('tls.minVersion');
  });

  it('includeDefaultCA false without a CA', () => {
    expect(configError({ tls: { includeDefaultCA: false } }).option).toBe('tls.includeDefaultCA');
  });
});

describe('the fetch transport says what it cannot honour', () => {
  it('refuses a proxy', () => {
    expect(() => new FetchTransport({ proxy: 'http://proxy.corp:3128' as never })).toThrow(
      /^proxy cannot be honoured by FetchTransport: the fetch API has no proxy setting/,
    );
  });

  it('refuses TLS settings, listing them', () => {
    expect(() => new FetchTransport({ tls: { ca: pki.ca, servername: 'x' } as never })).toThrow(
      'tls cannot be honoured by FetchTransport (tls.ca, tls.servername)',
    );
  });

  it('accepts proxy: false', () => {
    expect(new FetchTransport({ proxy: false })).toBeInstanceOf(FetchTransport);
  });
});
