// `--ca`, `--cert`, `--key`, `--pfx` and `--proxy`: the core client's `tls` and `proxy` options, from flags.
import { ConfigError, UndiciTransport, type ClientOptions, type TLSOptions } from '@sluice/core';
import { PASSPHRASE_ENV } from './command-options.js';
import { UsageError } from './errors.js';

/** Flags about how the service is reached: proxy, trusted CAs and a client certificate. */
export interface TransportFlags {
  /** A proxy URL, or `false` (`--no-proxy`) for direct connections; default: `HTTPS_PROXY` and friends. */
  proxy?: string | false;
  ca?: string;
  cert?: string;
  key?: string;
  pfx?: string;
}

/** The core option each flag sets, for messages in the user's words. */
const FLAG_OF: Record<string, string> = {
  'tls.ca': '--ca', 'tls.cert': '--cert', 'tls.key': '--key', 'tls.pfx': '--pfx', 'tls.passphrase': PASSPHRASE_ENV, tls: '--cert/--key', proxy: '--proxy',
};

function proxyOption(proxy: string | false | undefined): ClientOptions['proxy'] {
  if (proxy === undefined || proxy === false) return proxy;
  if (!URL.canParse(proxy)) throw new UsageError('--proxy is not a URL', 'for example --proxy http://proxy.corp.example:3128');
  const url = new URL(proxy);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--proxy must use http or https, got ${url.protocol}`);
  // Flags show in the process list and the shell history: a proxy password belongs in the environment.
  if (url.username || url.password) {
    throw new UsageError('--proxy must not carry credentials', 'set HTTPS_PROXY=http://user:password@host:port in the environment instead, and leave --proxy out');
  }
  return proxy;
}

function tlsOption(flags: TransportFlags, env: NodeJS.ProcessEnv): TLSOptions | undefined {
  if (flags.pfx !== undefined && (flags.cert !== undefined || flags.key !== undefined)) {
    throw new UsageError('--pfx does not go with --cert/--key', 'give the client certificate one way: a PKCS#12 file, or PEM certificate and key');
  }
  if ((flags.cert === undefined) !== (flags.key === undefined)) {
    throw new UsageError(flags.cert === undefined ? '--key needs --cert' : '--cert needs --key', 'a client certificate goes with its private key: --cert client.pem --key client.key');
  }
  const tls: TLSOptions = {};
  if (flags.ca !== undefined) tls.ca = { path: flags.ca };
  if (flags.cert !== undefined) tls.cert = { path: flags.cert };
  if (flags.key !== undefined) tls.key = { path: flags.key };
  if (flags.pfx !== undefined) tls.pfx = { path: flags.pfx };
  const passphrase = env[PASSPHRASE_ENV];
  if (passphrase !== undefined && passphrase !== '' && (tls.key !== undefined || tls.pfx !== undefined)) tls.passphrase = passphrase;
  return Object.keys(tls).length === 0 ? undefined : tls;
}

/** The `proxy` and `tls` client options the flags ask for (files are read when the client is created). */
export function transportOptions(flags: TransportFlags, env: NodeJS.ProcessEnv): Pick<ClientOptions, 'proxy' | 'tls'> {
  const proxy = proxyOption(flags.proxy);
  const tls = tlsOption(flags, env);
  return { ...(proxy === undefined ? {} : { proxy }), ...(tls === undefined ? {} : { tls }) };
}

/**
 * A {@link ConfigError} about `tls` or `proxy` (a file that cannot be read, a key that does not match
 * its certificate, a wrong passphrase) as a usage error naming the flag; other errors as they are.
 */
export function explainTransportError(error: unknown): unknown {
  if (!(error instanceof ConfigError)) return error;
  // Through the OData client the core's option is named under `http.` (`http.tls.ca`).
  const option = error.option.startsWith('http.') ? error.option.slice('http.'.length) : error.option;
  const flag = FLAG_OF[option];
  if (flag === undefined) return error;
  const problem = error.message.slice(error.option.length).trim();
  const hint = option === 'tls.passphrase' ? `put the passphrase in ${PASSPHRASE_ENV}` : undefined;
  return new UsageError(`${flag} ${problem}`, hint);
}

/**
 * Reads the TLS files and builds the secure context now, as creating the client would: a wrong path,
 * a key that does not match or a wrong passphrase fails before a browser sign-in rather than after it.
 */
export async function checkTLSFlags(options: Pick<ClientOptions, 'tls'>): Promise<void> {
  if (options.tls === undefined) return;
  try {
    await new UndiciTransport({ tls: options.tls, proxy: false }).close();
  } catch (error) {
    throw explainTransportError(error);
  }
}
