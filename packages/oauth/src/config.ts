import { checkOptionKeys, ConfigError } from '@sluice/core';
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { ClientAuthMethod, GrantType, OAuth2Config, OAuth2Options } from './types.js';

const GRANTS: readonly GrantType[] = ['client_credentials', 'authorization_code', 'refresh_token'];
const AUTH_METHODS: readonly ClientAuthMethod[] = [
  'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt', 'none',
  'tls_client_auth', 'self_signed_tls_client_auth',
];
/** Methods that need the client secret. */
const SECRET_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'client_secret_jwt'];
const HMAC_ALGS = ['HS256', 'HS384', 'HS512'];
const CONFIG_KEYS: readonly (keyof OAuth2Config)[] = [
  'clientId', 'clientSecret', 'tokenURL', 'issuer', 'scopes', 'grantType', 'authorizationURL', 'redirectURL', 'pkce',
  'extraParams', 'refreshBuffer', 'tokenCache', 'tokenEndpointAuthMethod', 'privateKey', 'privateKeyId',
  'signingAlgorithm', 'allowInsecureHTTP',
];
/** Names other OAuth libraries use, mapped to ours. */
const CONFIG_HINTS: Readonly<Record<string, string>> = {
  scope: 'scopes', tokenUrl: 'tokenURL', tokenEndpoint: 'tokenURL', token_endpoint: 'tokenURL', client_id: 'clientId',
  client_secret: 'clientSecret', grant_type: 'grantType', authMethod: 'tokenEndpointAuthMethod', issuerURL: 'issuer',
  redirectUri: 'redirectURL', redirect_uri: 'redirectURL', audience: 'extraParams', resource: 'extraParams',
};
const OPTION_KEYS: readonly (keyof OAuth2Options)[] = [
  'authorizationCode', 'codeVerifier', 'refreshToken', 'onTokenEvent', 'cacheKey', 'refreshRetry', 'timeout',
  'tokenRetry', 'defaultExpiresIn', 'minTokenInterval', 'tokenTransport',
];
/** Form parameters the plugin sets itself; `extraParams` may not override them. */
const RESERVED_PARAMS = new Set([
  'grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'client_id', 'client_secret', 'scope',
  'client_assertion', 'client_assertion_type',
]);

/** The configuration after validation, defaults filled in. */
export interface ResolvedConfig {
  clientId: string;
  clientSecret: string | undefined;
  /** The configured token endpoint; undefined when it comes from discovery of `issuer`. */
  tokenURL: string | undefined;
  issuer: string | undefined;
  scopes: readonly string[];
  grantType: GrantType;
  authorizationURL: string | undefined;
  redirectURL: string | undefined;
  pkce: boolean;
  extraParams: Readonly<Record<string, string>>;
  refreshBuffer: number;
  authMethod: ClientAuthMethod;
  /** The parsed key and its JWS algorithm, for `private_key_jwt`. */
  privateKey: { key: KeyObject; alg: string; kid: string | undefined } | undefined;
  /** JWS algorithm of `client_secret_jwt`. */
  signingAlgorithm: string | undefined;
  allowInsecureHTTP: boolean;
}

/** Whether `hostname` (as `URL` gives it) is this machine: plain http there never crosses a network. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/**
 * Checks an authorization server URL: absolute, http(s), no fragment, no credentials, and https unless
 * the host is loopback or `allowInsecureHTTP` is set (RFC 6749 3.1 and 3.2 require TLS).
 */
export function checkServerURL(option: string, value: unknown, allowInsecureHTTP: boolean): string {
  if (typeof value !== 'string' || !URL.canParse(value)) throw new ConfigError(option, 'must be an absolute http(s) URL');
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(option, `must use http or https, got ${url.protocol}`);
  // RFC 6749 3.1: the endpoint URI must not include a fragment component.
  if (url.hash !== '') throw new ConfigError(option, 'must not contain a fragment');
  if (url.username || url.password) throw new ConfigError(option, 'must not contain credentials');
  // RFC 6749 3.1 / 3.2: credentials and codes travel here, so TLS is required off this machine.
  if (url.protocol === 'http:' && !allowInsecureHTTP && !isLoopback(url.hostname)) {
    throw new ConfigError(option, `must use https (plain http is only accepted for loopback hosts, or with allowInsecureHTTP: true), got http://${url.host}`);
  }
  return value;
}

function checkRedirectURL(value: unknown): string {
  if (typeof value !== 'string' || !URL.canParse(value)) throw new ConfigError('redirectURL', 'must be an absolute http(s) URL');
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('redirectURL', `must use http or https, got ${url.protocol}`);
  // RFC 6749 3.1.2: the redirection endpoint URI must not include a fragment component.
  if (url.hash !== '') throw new ConfigError('redirectURL', 'must not contain a fragment');
  if (url.username || url.password) throw new ConfigError('redirectURL', 'must not contain credentials');
  return value;
}

/** JWS algorithm for a private key: RS256 for RSA, ES256/384/512 by curve, EdDSA for Ed25519 (RFC 7518 3.1). */
function algorithmFor(key: KeyObject): string | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa': return 'RS256';
    case 'rsa-pss': return 'PS256';
    case 'ed25519': return 'EdDSA';
    case 'ec': return { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' }[key.asymmetricKeyDetails?.namedCurve ?? ''];
    default: return undefined;
  }
}

function checkPrivateKey(config: OAuth2Config): ResolvedConfig['privateKey'] {
  const raw = config.privateKey;
  if (raw === undefined) throw new ConfigError('privateKey', 'is required with tokenEndpointAuthMethod private_key_jwt (a PEM string, a JWK or a KeyObject)');
  let key: KeyObject;
  try {
    if (typeof raw === 'string') key = createPrivateKey(raw);
    else if ('asymmetricKeyType' in raw || 'export' in raw) key = raw as KeyObject;
    else key = createPrivateKey({ key: raw as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch {
    // The parser's message may quote the key material: it is not passed on.
    throw new ConfigError('privateKey', 'could not be read as a private key (PEM PKCS#8/PKCS#1/SEC1, JWK or KeyObject)');
  }
  if (key.type !== 'private') throw new ConfigError('privateKey', `must be a private key, got a ${key.type} key`);
  const alg = config.signingAlgorithm ?? algorithmFor(key);
  if (alg === undefined) throw new ConfigError('signingAlgorithm', `is required for a ${String(key.asymmetricKeyType)} key`);
  if (HMAC_ALGS.includes(alg)) throw new ConfigError('signingAlgorithm', `${alg} is for client_secret_jwt; private_key_jwt needs an asymmetric algorithm`);
  if (config.privateKeyId !== undefined && (typeof config.privateKeyId !== 'string' || config.privateKeyId === '')) throw new ConfigError('privateKeyId', 'must be a non-empty string');
  return { key, alg, kid: config.privateKeyId };
}

function checkScopes(scopes: unknown): readonly string[] {
  if (scopes === undefined) return [];
  if (!Array.isArray(scopes)) throw new ConfigError('scopes', 'must be an array of strings');
  for (const scope of scopes) {
    // RFC 6749 3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ), space-delimited.
    if (typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)) {
      throw new ConfigError('scopes', `must hold scope tokens without spaces, quotes or backslashes, got ${JSON.stringify(scope)}`);
    }
  }
  return [...scopes];
}

function checkExtraParams(params: unknown): Record<string, string> {
  if (params === undefined) return {};
  if (params === null || typeof params !== 'object') throw new ConfigError('extraParams', 'must be an object of strings');
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string') throw new ConfigError(`extraParams.${name}`, `must be a string, got ${typeof value}`);
    if (RESERVED_PARAMS.has(name)) throw new ConfigError(`extraParams.${name}`, 'is set by the plugin and cannot be overridden');
    out[name] = value;
  }
  return out;
}

/**
 * Validates an {@link OAuth2Config} with its options and fills in defaults. Throws `ConfigError` naming
 * the first problem; never puts the secret in the message.
 */
export function resolveConfig(config: OAuth2Config, options: OAuth2Options = {}): ResolvedConfig {
  if (config === null || typeof config !== 'object') throw new ConfigError('config', 'must be an object');
  checkOptionKeys('', config, CONFIG_KEYS, CONFIG_HINTS);
  if (options === null || typeof options !== 'object') throw new ConfigError('options', 'must be an object');
  checkOptionKeys('', options, OPTION_KEYS, { scope: 'scopes (in the config, the first argument)' });
  if (typeof config.clientId !== 'string' || config.clientId === '') throw new ConfigError('clientId', 'must be a non-empty string');
  if (config.clientSecret !== undefined && typeof config.clientSecret !== 'string') throw new ConfigError('clientSecret', 'must be a string');
  const clientSecret = config.clientSecret === '' ? undefined : config.clientSecret;
  const allowInsecureHTTP = config.allowInsecureHTTP ?? false;
  if (typeof allowInsecureHTTP !== 'boolean') throw new ConfigError('allowInsecureHTTP', 'must be a boolean');
  if (config.tokenURL === undefined && config.issuer === undefined) throw new ConfigError('tokenURL', 'is required (or give issuer to discover it)');
  const tokenURL = config.tokenURL === undefined ? undefined : checkServerURL('tokenURL', config.tokenURL, allowInsecureHTTP);
  const issuer = config.issuer === undefined ? undefined : checkServerURL('issuer', config.issuer, allowInsecureHTTP);
  // RFC 8414 2: the issuer identifier has no query or fragment component.
  if (issuer !== undefined && new URL(issuer).search !== '') throw new ConfigError('issuer', 'must not contain a query');
  if (!GRANTS.includes(config.grantType)) throw new ConfigError('grantType', `must be one of ${GRANTS.join(', ')}, got ${String(config.grantType)}`);
  const authMethod = config.tokenEndpointAuthMethod ?? (clientSecret === undefined ? (config.privateKey === undefined ? 'none' : 'private_key_jwt') : 'client_secret_basic');
  if (!AUTH_METHODS.includes(authMethod)) throw new ConfigError('tokenEndpointAuthMethod', `must be one of ${AUTH_METHODS.join(', ')}, got ${String(authMethod)}`);
  if (SECRET_METHODS.includes(authMethod) && clientSecret === undefined) throw new ConfigError('clientSecret', `is required with tokenEndpointAuthMethod ${authMethod}`);
  if (!SECRET_METHODS.includes(authMethod) && clientSecret !== undefined) throw new ConfigError('tokenEndpointAuthMethod', `${authMethod} does not use clientSecret: remove it or pick client_secret_basic, client_secret_post or client_secret_jwt`);
  if (authMethod !== 'private_key_jwt' && config.privateKey !== undefined) throw new ConfigError('privateKey', 'is only used with tokenEndpointAuthMethod private_key_jwt');
  const privateKey = authMethod === 'private_key_jwt' ? checkPrivateKey(config) : undefined;
  let signingAlgorithm: string | undefined;
  if (authMethod === 'client_secret_jwt') {
    signingAlgorithm = config.signingAlgorithm ?? 'HS256';
    // RFC 7523 / OpenID Connect Core 9: client_secret_jwt is an HMAC over the secret.
    if (!HMAC_ALGS.includes(signingAlgorithm)) throw new ConfigError('signingAlgorithm', `must be one of ${HMAC_ALGS.join(', ')} with client_secret_jwt, got ${signingAlgorithm}`);
  } else if (authMethod !== 'private_key_jwt' && config.signingAlgorithm !== undefined) {
    throw new ConfigError('signingAlgorithm', 'is only used with client_secret_jwt and private_key_jwt');
  }
  const refreshBuffer = config.refreshBuffer ?? 30_000;
  if (typeof refreshBuffer !== 'number' || !Number.isFinite(refreshBuffer) || refreshBuffer < 0) {
    throw new ConfigError('refreshBuffer', `must be a number of ms >= 0, got ${String(refreshBuffer)}`);
  }
  const pkce = config.pkce ?? config.grantType === 'authorization_code';
  if (typeof pkce !== 'boolean') throw new ConfigError('pkce', 'must be a boolean');
  const resolved: ResolvedConfig = {
    clientId: config.clientId,
    clientSecret,
    tokenURL,
    issuer,
    scopes: checkScopes(config.scopes),
    grantType: config.grantType,
    authorizationURL: config.authorizationURL === undefined ? undefined : checkServerURL('authorizationURL', config.authorizationURL, allowInsecureHTTP),
    redirectURL: config.redirectURL === undefined ? undefined : checkRedirectURL(config.redirectURL),
    pkce,
    extraParams: checkExtraParams(config.extraParams),
    refreshBuffer,
    authMethod,
    privateKey,
    signingAlgorithm,
    allowInsecureHTTP,
  };
  if (config.tokenCache !== undefined) {
    const cache = config.tokenCache as unknown as Record<string, unknown>;
    if (!['get', 'set', 'delete'].every((m) => typeof cache[m] === 'function')) throw new ConfigError('tokenCache', 'must implement get, set and delete');
    if (cache['release'] !== undefined && typeof cache['release'] !== 'function') throw new ConfigError('tokenCache', 'release, when present, must be a function');
  }
  checkGrant(resolved, config, options);
  return resolved;
}

function checkGrant(config: ResolvedConfig, raw: OAuth2Config, options: OAuth2Options): void {
  const isPublic = config.authMethod === 'none';
  if (config.grantType === 'client_credentials') {
    // RFC 6749 4.4: the client credentials grant is for confidential clients only.
    if (isPublic) throw new ConfigError('clientSecret', 'is required for grantType client_credentials (RFC 6749 4.4), or a privateKey with private_key_jwt');
    if (options.authorizationCode !== undefined) throw new ConfigError('authorizationCode', 'is only used with grantType authorization_code');
    return;
  }
  // RFC 9700 2.1.1: public clients must use PKCE.
  if (isPublic && !config.pkce && config.grantType === 'authorization_code') throw new ConfigError('pkce', 'must be true for a public client (no clientSecret): RFC 9700 2.1.1');
  if (config.grantType === 'authorization_code') {
    if (config.redirectURL === undefined) throw new ConfigError('redirectURL', 'is required for grantType authorization_code');
    if (options.authorizationCode !== undefined) {
      if (typeof options.authorizationCode !== 'string' || options.authorizationCode === '') throw new ConfigError('authorizationCode', 'must be a non-empty string');
      // RFC 7636 4.5: the verifier that matches the challenge must accompany the code.
      if (config.pkce && !options.codeVerifier) throw new ConfigError('codeVerifier', 'is required with pkce: pass the codeVerifier from buildAuthorizationURL');
    }
    if (options.codeVerifier !== undefined && !/^[A-Za-z0-9\-._~]{43,128}$/.test(options.codeVerifier)) {
      // RFC 7636 4.1: 43 to 128 unreserved characters.
      throw new ConfigError('codeVerifier', 'must be 43 to 128 unreserved characters (RFC 7636 4.1)');
    }
  }
  if (config.grantType === 'refresh_token' && !options.refreshToken) throw new ConfigError('refreshToken', 'is required for grantType refresh_token');
  if (raw.tokenCache !== undefined && options.cacheKey === undefined) {
    throw new ConfigError('cacheKey', `is required with a custom tokenCache for grantType ${config.grantType}, so that two users never share a cached token`);
  }
}
