import {
  checkOptionKeys, ConfigError, createClient, UndiciTransport, type Client, type Transport, type UndiciTransportOptions,
} from '@sluice/core';

/** One request to the authorization server (token endpoint or discovery document). */
export interface AuthServerRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string | undefined;
  signal?: AbortSignal | undefined;
}

/** What came back: the status, the headers the plugin reads, and the body as text. */
export interface AuthServerResponse {
  status: number;
  contentType: string | undefined;
  text: string;
}

/**
 * The one seam every call to the authorization server goes through: token requests and discovery.
 * It is built in one place ({@link createAuthServerHTTP}), so how these calls travel (timeout, a
 * transport of their own, client certificates) is decided there and nowhere else. Network failures
 * reject with the core client's error; HTTP statuses resolve, the caller judges them.
 */
export interface AuthServerHTTP {
  send(request: AuthServerRequest): Promise<AuthServerResponse>;
  close(): Promise<void>;
  /** The transport the calls go through: `tokenTransport`, or the API client's once handed over; undefined before. */
  readonly transport: Transport | undefined;
  /** Hands over the API client's transport, used unless `tokenTransport` was given (the plugin's setup calls it). */
  useClientTransport(transport: Transport): void;
}

/** Options of {@link createAuthServerHTTP}. */
export interface AuthServerHTTPOptions {
  /** Timeout of each call in ms. */
  timeout: number;
  /** The plugin's `tokenTransport` option: a transport, or options of an {@link UndiciTransport} of its own. */
  tokenTransport?: Transport | UndiciTransportOptions;
}

const TRANSPORT_KEYS = ['connections', 'keepAliveTimeout', 'connectTimeout', 'decompress', 'dispatcher', 'proxy', 'tls'];

/** The `tokenTransport` option as a transport, and whether the plugin created it (and so closes it). */
function ownTransport(option: AuthServerHTTPOptions['tokenTransport']): { transport: Transport; owned: boolean } | undefined {
  if (option === undefined) return undefined;
  if (option === null || typeof option !== 'object') throw new ConfigError('tokenTransport', 'must be a Transport or the options of an UndiciTransport');
  if (typeof (option as Transport).send === 'function') {
    if (typeof (option as Transport).close !== 'function') throw new ConfigError('tokenTransport', 'must implement send() and close()');
    return { transport: option as Transport, owned: false };
  }
  checkOptionKeys('tokenTransport', option, TRANSPORT_KEYS);
  try {
    return { transport: new UndiciTransport(option as UndiciTransportOptions), owned: true };
  } catch (error) {
    // Name the option as the user wrote it: tokenTransport.tls.cert, not tls.cert.
    if (error instanceof ConfigError) {
      // Paths inside the problem too: "is not an option of tls; did you mean tls.insecureSkipVerify?".
      const top = error.option.split('.')[0]!;
      const problem = error.message.slice(error.option.length + 1).replaceAll(` ${top}`, ` tokenTransport.${top}`);
      throw new ConfigError(`tokenTransport.${error.option}`, problem, { cause: error.cause });
    }
    throw error;
  }
}

/**
 * Builds the {@link AuthServerHTTP} of one plugin: a core client of its own, without base URL or API
 * plugins, so API credentials never reach the authorization server and token requests never pass
 * through the OAuth plugin. No core retries (the token manager owns retrying) and no redirects (RFC
 * 6749 3.2 gives the endpoint no reason to redirect a POST carrying credentials). The calls travel
 * through `tokenTransport` when given, else through the API client's transport (handed over by
 * {@link AuthServerHTTP.useClientTransport} when the plugin is set up), so one `proxy`/`tls`
 * configuration reaches both; used before that (or alone) it has an {@link UndiciTransport} of its own.
 */
export function createAuthServerHTTP(options: AuthServerHTTPOptions): AuthServerHTTP {
  const own = ownTransport(options.tokenTransport);
  let shared: Transport | undefined;
  let http: Client | undefined;
  const client = (): Client => {
    http ??= createClient({
      timeout: options.timeout, retry: false, maxRedirects: 0, throwHttpErrors: false, transport: own?.transport ?? shared,
    });
    return http;
  };
  return {
    get transport() {
      return own?.transport ?? shared;
    },
    useClientTransport(transport) {
      if (own === undefined && http === undefined) shared = transport;
    },
    async send(request) {
      const response = await client().request({
        method: request.method,
        path: request.url,
        headers: request.headers,
        ...(request.body === undefined ? {} : { body: request.body }),
        ...(request.signal === undefined ? {} : { signal: request.signal }),
      });
      const text = await response.text();
      return { status: response.status, contentType: response.headers.get('content-type') ?? undefined, text };
    },
    async close() {
      // A client given a transport never closes it: the one the plugin built is closed here.
      await http?.close();
      if (own?.owned === true) await own.transport.close();
    },
  };
}
