import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate and its private key, PEM text, and where they are on disk. */
export interface TestKeyPair {
  readonly cert: string;
  readonly key: string;
  readonly certPath: string;
  readonly keyPath: string;
}

/** Certificates made for one test file by {@link createTestPKI}, deleted by `close()`. */
export interface TestPKI {
  /** The test CA (PEM) and its file. */
  readonly ca: string;
  readonly caPath: string;
  /** Server certificate for `localhost` and `127.0.0.1` (plus `serverNames`), signed by the CA. */
  readonly server: TestKeyPair;
  /** Client certificate (CN `sluice-client`, clientAuth), signed by the CA. */
  readonly client: TestKeyPair & {
    /** The client key encrypted with {@link TestPKI.passphrase}. */
    readonly encryptedKey: string;
    readonly encryptedKeyPath: string;
    /** PKCS#12 bundle of the client certificate and key, protected by {@link TestPKI.passphrase}. */
    readonly pfx: Buffer;
    readonly pfxPath: string;
  };
  /** Passphrase of the encrypted client key and of the PKCS#12 bundle. */
  readonly passphrase: string;
  /** A client certificate from another CA, which servers trusting only the test CA refuse. */
  readonly stranger: TestKeyPair;
  /** The folder holding every file. */
  readonly dir: string;
  /** Deletes the files. */
  close(): Promise<void>;
}

/** Options of {@link createTestPKI}. */
export interface TestPKIOptions {
  /** Extra DNS names for the server certificate. */
  serverNames?: readonly string[];
  /** Replace the default `localhost` / `127.0.0.1` names of the server certificate (for `servername` tests). */
  onlyServerNames?: boolean;
}

const CURVE = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

async function makeCA(dir: string, name: string): Promise<{ certPath: string; keyPath: string }> {
  const certPath = join(dir, `${name}.pem`);
  const keyPath = join(dir, `${name}.key`);
  await run('openssl', ['req', '-x509', ...CURVE, '-keyout', keyPath, '-out', certPath, '-days', '2', '-subj', `/CN=sluice ${name}`]);
  return { certPath, keyPath };
}

async function issue(
  dir: string, name: string, ca: { certPath: string; keyPath: string }, extensions: string,
): Promise<TestKeyPair> {
  const keyPath = join(dir, `${name}.key`);
  const csrPath = join(dir, `${name}.csr`);
  const certPath = join(dir, `${name}.pem`);
  const extPath = join(dir, `${name}.ext`);
  await writeFile(extPath, extensions);
  await run('openssl', ['req', '-new', ...CURVE, '-keyout', keyPath, '-out', csrPath, '-subj', `/CN=${name}`]);
  // A random serial per certificate: -CAcreateserial would share one ca.srl file between the certificates
  // issued in parallel, and two openssl processes writing it at once fail now and then on a loaded machine.
  await run('openssl', [
    'x509', '-req', '-in', csrPath, '-CA', ca.certPath, '-CAkey', ca.keyPath, '-set_serial', `0x${randomBytes(16).toString('hex').replace(/^./, '1')}`,
    '-days', '2', '-out', certPath, '-extfile', extPath,
  ]);
  return { cert: await readFile(certPath, 'utf8'), key: await readFile(keyPath, 'utf8'), certPath, keyPath };
}

/**
 * Makes a throw-away PKI with openssl at test time: a CA, a server certificate for `localhost` and
 * `127.0.0.1`, a client certificate (also as an encrypted key and a PKCS#12 bundle) and a client
 * certificate from a second CA. EC P-256 keys, valid two days, in a temporary folder.
 *
 * @example
 * ```ts
 * const pki = await createTestPKI()
 * const server = await startServer(handler, { tls: { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true } })
 * await pki.close()
 * ```
 */
export async function createTestPKI(options: TestPKIOptions = {}): Promise<TestPKI> {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-pki-'));
  try {
    return await generate(dir, options);
  } catch (error) {
    // A failed openssl step leaves no keys behind.
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

async function generate(dir: string, options: TestPKIOptions): Promise<TestPKI> {
  const passphrase = 'test-passphrase-9c1e';
  const ca = await makeCA(dir, 'ca');
  const names = [...(options.onlyServerNames === true ? [] : ['DNS:localhost', 'IP:127.0.0.1']), ...(options.serverNames ?? []).map((n) => `DNS:${n}`)];
  const [server, client, other] = await Promise.all([
    issue(dir, 'server', ca, `subjectAltName=${names.join(',')}\nextendedKeyUsage=serverAuth\n`),
    issue(dir, 'sluice-client', ca, 'extendedKeyUsage=clientAuth\n'),
    makeCA(dir, 'other-ca'),
  ]);
  const stranger = await issue(dir, 'stranger', other, 'extendedKeyUsage=clientAuth\n');
  const encryptedKeyPath = join(dir, 'sluice-client.enc.key');
  const pfxPath = join(dir, 'sluice-client.p12');
  await run('openssl', ['pkey', '-in', client.keyPath, '-aes256', '-passout', `pass:${passphrase}`, '-out', encryptedKeyPath]);
  await run('openssl', ['pkcs12', '-export', '-inkey', client.keyPath, '-in', client.certPath, '-passout', `pass:${passphrase}`, '-out', pfxPath]);
  return {
    ca: await readFile(ca.certPath, 'utf8'),
    caPath: ca.certPath,
    server,
    client: {
      ...client,
      encryptedKey: await readFile(encryptedKeyPath, 'utf8'),
      encryptedKeyPath,
      pfx: await readFile(pfxPath),
      pfxPath,
    },
    passphrase,
    stranger,
    dir,
    close: () => rm(dir, { recursive: true, force: true }),
  };
}
