import { ConfigError } from '@sluice/core';
import type { AuthServerHTTP } from './auth-server-http.js';
import { checkServerURL, type ResolvedConfig } from './config.js';
import { DiscoveryError } from './errors.js';

/** The endpoints the plugin uses, configured or discovered. */
export interface ServerEndpoints {
  tokenURL: string;
  authorizationURL: string | undefined;
}

/** The parts of RFC 8414 2 / OpenID Connect Discovery 3 metadata the plugin reads. */
interface ServerMetadata {
  token_endpoint: string;
  authorization_endpoint: string | undefined;
  /** RFC 8705 5: `mtls_endpoint_aliases.token_endpoint`, the token endpoint for clients presenting a certificate. */
  mtls_token_endpoint: string | undefined;
}

/** How long discovered metadata is reused by every plugin of the process. */
const METADATA_TTL = 3600_000;
const discovered = new Map<string, { at: number; metadata: Promise<ServerMetadata> }>();

/**
 * The well-known URLs to try, in order: OpenID Connect Discovery 4.1 appends to the issuer; RFC 8414
 * 3.1 inserts between host and path.
 */
function wellKnownURLs(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/+$/, '');
  return [
    `${url.origin}${path}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

/**
 * The token and authorization endpoints of `config`: the configured ones, else those discovered from
 * `config.issuer` (cached per process for an hour; a failure is not cached, the next call tries again).
 */
export async function serverEndpoints(config: ResolvedConfig, http: AuthServerHTTP, signal?: AbortSignal): Promise<ServerEndpoints> {
  if (config.tokenURL !== undefined && (config.authorizationURL !== undefined || config.issuer === undefined)) {
    return { tokenURL: config.tokenURL, authorizationURL: config.authorizationURL };
  }
  const metadata = await discover(config, http, signal);
  // RFC 8705 5: a client authenticating with its certificate uses the mTLS alias when the server names one.
  const certificateAuth = config.authMethod === 'tls_client_auth' || config.authMethod === 'self_signed_tls_client_auth';
  return {
    tokenURL: config.tokenURL ?? (certificateAuth ? metadata.mtls_token_endpoint : undefined) ?? metadata.token_endpoint,
    authorizationURL: config.authorizationURL ?? metadata.authorization_endpoint,
  };
}

function discover(config: ResolvedConfig, http: AuthServerHTTP, signal: AbortSignal | undefined): Promise<ServerMetadata> {
  const issuer = config.issuer!;
  const key = `${issuer} ${config.allowInsecureHTTP}`;
  const hit = discovered.get(key);
  if (hit !== undefined && Date.now() - hit.at < METADATA_TTL) return hit.metadata;
  const metadata = fetchMetadata(issuer, config.allowInsecureHTTP, http, signal);
  discovered.set(key, { at: Date.now(), metadata });
  metadata.catch(() => {
    if (discovered.get(key)?.metadata === metadata) discovered.delete(key);
  });
  return metadata;
}

async function fetchMetadata(issuer: string, allowInsecureHTTP: boolean, http: AuthServerHTTP, signal: AbortSignal | undefined): Promise<ServerMetadata> {
  // A transient failure (no answer, 5xx) wins over a 404 of the other URL, so the caller may retry.
  let transient: DiscoveryError | undefined;
  let missing: DiscoveryError | undefined;
  for (const url of wellKnownURLs(issuer)) {
    let response;
    try {
      response = await http.send({ method: 'GET', url, headers: { accept: 'application/json' }, signal });
    } catch (cause) {
      transient ??= new DiscoveryError(issuer, 'the metadata document could not be fetched', { cause });
      if (signal?.aborted) throw transient;
      continue;
    }
    if (response.status === 200) return parseMetadata(issuer, allowInsecureHTTP, response.text);
    const error = new DiscoveryError(issuer, `no metadata document at the well-known URLs (last status ${response.status})`, { status: response.status });
    if (response.status >= 500) transient ??= error;
    else missing = error;
  }
  throw transient ?? missing!;
}

function parseMetadata(issuer: string, allowInsecureHTTP: boolean, text: string): ServerMetadata {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new DiscoveryError(issuer, 'the metadata document is not JSON', { status: 200 });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new DiscoveryError(issuer, 'the metadata document is not a JSON object', { status: 200 });
  const doc = body as Record<string, unknown>;
  // RFC 8414 3.3 / OpenID Connect Discovery 4.3: the document's issuer must be exactly the one asked for.
  if (doc['issuer'] !== issuer) {
    throw new DiscoveryError(issuer, `the metadata document names another issuer (${typeof doc['issuer'] === 'string' ? JSON.stringify(doc['issuer']) : 'none'})`, { status: 200 });
  }
  const aliases = doc['mtls_endpoint_aliases'];
  const endpoint = (name: string, value: unknown = doc[name]): string | undefined => {
    if (value === undefined) return undefined;
    try {
      return checkServerURL(name, value, allowInsecureHTTP);
    } catch (error) {
      throw new DiscoveryError(issuer, error instanceof ConfigError ? error.message : `${name} is not a usable URL`, { status: 200 });
    }
  };
  const tokenEndpoint = endpoint('token_endpoint');
  if (tokenEndpoint === undefined) throw new DiscoveryError(issuer, 'the metadata document has no token_endpoint', { status: 200 });
  return {
    token_endpoint: tokenEndpoint,
    authorization_endpoint: endpoint('authorization_endpoint'),
    mtls_token_endpoint: aliases !== null && typeof aliases === 'object'
      ? endpoint('mtls_endpoint_aliases.token_endpoint', (aliases as Record<string, unknown>)['token_endpoint'])
      : undefined,
  };
}
