import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { ConfigError } from '../errors.js';
import { checkOptionKeys } from '../option-keys.js';

/** Certificate or key material: PEM text, bytes (PEM, or DER for `pfx`), or a file to read at construction. */
export type TLSMaterial = string | Uint8Array | { readonly path: string };

/**
 * TLS settings of a transport (`tls` option). Every file is read and every certificate and key checked
 * when the transport is created, so a wrong path or a key that does not match its certificate fails
 * at once with a {@link ConfigError} rather than on the first request.
 *
 * @example
 * ```ts
 * createClient({
 *   baseURL: 'https://erp.corp.example/sap/opu/odata/sap/API_BUSINESS_PARTNER',
 *   tls: { ca: { path: '/etc/ssl/corp-root.pem' }, cert: { path: 'client.pem' }, key: { path: 'client.key' } },
 * })
 * ```
 */
export interface TLSOptions {
  /** Certificate authorities to trust (PEM; several certificates in one text are fine). */
  ca?: TLSMaterial | readonly TLSMaterial[] | undefined;
  /** Keep trusting Node's bundled roots (and `NODE_EXTRA_CA_CERTS`) next to `ca`. Default true; `false` trusts `ca` only. */
  includeDefaultCA?: boolean | undefined;
  /** Client certificate chain (PEM) for mutual TLS, with `key`. */
  cert?: TLSMaterial | undefined;
  /** Private key (PEM) of `cert`; encrypted keys need `passphrase`. */
  key?: TLSMaterial | undefined;
  /** Passphrase of an encrypted `key` or of `pfx`. */
  passphrase?: string | undefined;
  /** PKCS#12 bundle (certificate and key) for mutual TLS, instead of `cert` + `key`. */
  pfx?: TLSMaterial | undefined;
  /** Server name for SNI and for checking the server's certificate, when it differs from the URL's host. */
  servername?: string | undefined;
  /** Lowest TLS version accepted. Default `'TLSv1.2'` (Node's). */
  minVersion?: 'TLSv1.2' | 'TLSv1.3' | undefined;
  /**
   * Accept any server certificate: expired, self-signed, for another host. Only for a throw-away test
   * machine; the client emits a `tls.insecure` event when this is set. Prefer `ca`.
   */
  insecureSkipVerify?: boolean | undefined;
}

/** Connection options for node:tls (and undici's `connect`), checked. */
export interface ResolvedTLS {
  readonly connect: tls.ConnectionOptions;
  /** `insecureSkipVerify` is set. */
  readonly insecure: boolean;
  /** A client certificate is configured (mutual TLS). */
  readonly clientCertificate: boolean;
}

const KEYS = ['ca', 'includeDefaultCA', 'cert', 'key', 'passphrase', 'pfx', 'servername', 'minVersion', 'insecureSkipVerify'];
const HINTS: Record<string, string> = {
  rejectUnauthorized: 'insecureSkipVerify', insecure: 'insecureSkipVerify', certificate: 'cert', privateKey: 'key',
  cacert: 'ca', certificateAuthority: 'ca', serverName: 'servername', sni: 'servername',
};
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads one piece of material; file problems name the option and the path, never the contents. */
function load(option: string, value: unknown, binary: boolean): string | Buffer {
  if (typeof value === 'string') {
    if (!binary && !value.includes('-----BEGIN')) throw new ConfigError(option, 'is not PEM text; to read a file, pass { path: "..." }');
    return value;
  }
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value !== null && typeof value === 'object' && typeof (value as { path?: unknown }).path === 'string') {
    const path = (value as { path: string }).path;
    try {
      return readFileSync(path);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      throw new ConfigError(option, `could not be read from ${path} (${typeof code === 'string' ? code : 'read error'})`);
    }
  }
  throw new ConfigError(option, 'must be PEM text, bytes, or { path } of a file');
}

/** Every certificate in a CA option, each checked to be a parseable X.509 certificate. */
function loadCA(option: string, value: unknown): string[] {
  const items = Array.isArray(value) ? value : [value];
  const out: string[] = [];
  items.forEach((item, i) => {
    const name = Array.isArray(value) ? `${option}[${i}]` : option;
    const text = load(name, item, false).toString('utf8');
    const blocks = text.match(PEM_BLOCK) ?? [];
    if (blocks.length === 0) throw new ConfigError(name, 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)');
    for (const block of blocks) {
      try {
        new X509Certificate(block);
      } catch {
        throw new ConfigError(name, 'holds a certificate that cannot be parsed');
      }
      out.push(block);
    }
  });
  return out;
}

/** The option at fault and the OpenSSL reason for a failed secure context, in words a user can act on (no key material). */
function explain(error: unknown): [string, string] {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : '';
  if (code === 'ERR_OSSL_X509_KEY_VALUES_MISMATCH') return ['key', 'does not match the certificate in cert'];
  if (code === 'ERR_OSSL_BAD_DECRYPT') return ['passphrase', 'is missing or wrong: the key is encrypted'];
  if (/mac verify failure/.test(message)) return ['passphrase', 'is missing or wrong: the pfx bundle cannot be opened'];
  if (code === 'ERR_OSSL_PEM_NO_START_LINE') return ['cert', 'is not a PEM certificate'];
  if (code === 'ERR_OSSL_UNSUPPORTED' || /DECODER/.test(message)) return ['key', 'is not a PEM private key that can be read'];
  return ['', `settings were refused by OpenSSL (${typeof code === 'string' ? code : message.slice(0, 80) || 'invalid material'})`];
}

/** Roots that stay trusted when `ca` adds to them: Node's bundle and, where Node exposes them, `NODE_EXTRA_CA_CERTS`. */
function defaultRoots(): readonly string[] {
  const withExtra = tls as typeof tls & { getCACertificates?: (type: string) => string[] };
  const extra = typeof withExtra.getCACertificates === 'function' ? withExtra.getCACertificates('extra') : [];
  return [...tls.rootCertificates, ...extra];
}

/**
 * Checks the `tls` option and turns it into node:tls connection options, or undefined when nothing is
 * set. Builds a secure context once to prove the certificate, key and passphrase go together.
 */
export function resolveTLS(option: string, value: unknown): ResolvedTLS | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigError(option, 'must be an object');
  checkOptionKeys(option, value, KEYS, HINTS);
  const o = value as TLSOptions;
  const connect: tls.ConnectionOptions = {};
  if (o.ca !== undefined) {
    const includeDefault = o.includeDefaultCA ?? true;
    if (typeof includeDefault !== 'boolean') throw new ConfigError(`${option}.includeDefaultCA`, 'must be a boolean');
    const ca = loadCA(`${option}.ca`, o.ca);
    connect.ca = includeDefault ? [...defaultRoots(), ...ca] : ca;
  } else if (o.includeDefaultCA === false) {
    throw new ConfigError(`${option}.includeDefaultCA`, 'is false but no tls.ca is given: nothing would be trusted');
  }
  if (o.pfx !== undefined && (o.cert !== undefined || o.key !== undefined)) {
    throw new ConfigError(`${option}.pfx`, 'cannot be combined with tls.cert / tls.key: give one or the other');
  }
  if ((o.cert === undefined) !== (o.key === undefined)) {
    throw new ConfigError(o.cert === undefined ? `${option}.cert` : `${option}.key`, 'is missing: mutual TLS needs both tls.cert and tls.key');
  }
  if (o.cert !== undefined) connect.cert = load(`${option}.cert`, o.cert, false);
  if (o.key !== undefined) connect.key = load(`${option}.key`, o.key, false);
  if (o.pfx !== undefined) connect.pfx = load(`${option}.pfx`, o.pfx, true);
  if (o.passphrase !== undefined) {
    if (typeof o.passphrase !== 'string') throw new ConfigError(`${option}.passphrase`, 'must be a string');
    connect.passphrase = o.passphrase;
  }
  if (o.servername !== undefined) {
    if (typeof o.servername !== 'string' || o.servername === '') throw new ConfigError(`${option}.servername`, 'must be a host name');
    connect.servername = o.servername;
  }
  if (o.minVersion !== undefined) {
    if (o.minVersion !== 'TLSv1.2' && o.minVersion !== 'TLSv1.3') throw new ConfigError(`${option}.minVersion`, `must be 'TLSv1.2' or 'TLSv1.3', got ${String(o.minVersion)}`);
    connect.minVersion = o.minVersion;
  }
  const insecure = o.insecureSkipVerify ?? false;
  if (typeof insecure !== 'boolean') throw new ConfigError(`${option}.insecureSkipVerify`, 'must be a boolean');
  if (insecure) connect.rejectUnauthorized = false;
  const clientCertificate = connect.cert !== undefined || connect.pfx !== undefined;
  if (clientCertificate) {
    try {
      tls.createSecureContext({ cert: connect.cert, key: connect.key, pfx: connect.pfx, passphrase: connect.passphrase });
    } catch (error) {
      const [key, problem] = explain(error);
      throw new ConfigError(key === '' ? option : `${option}.${key}`, problem);
    }
  }
  return { connect, insecure, clientCertificate };
}
