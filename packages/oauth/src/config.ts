import { ConfigError } from '@sluice/core';
import type { ClientAuthMethod, GrantType, OAuth2Config, OAuth2Options } from './types.js';

const GRANTS: readonly GrantType[] = ['client_credentials', 'authorization_code', 'refresh_token'];
const AUTH_METHODS: readonly ClientAuthMethod[] = ['client_secret_basic', 'client_secret_post', 'none'];
/** Form parameters the plugin sets itself; `extraParams` may not override them. */
const RESERVED_PARAMS = new Set([
  'grant_type', 'code', 'redirect_uri', 'code_verifier', 'refresh_token', 'client_id', 'client_secret', 'scope',
]);

/** The configuration after validation, defaults filled in. */
export interface ResolvedConfig {
  clientId: string;
  clientSecret: string | undefined;
  tokenURL: string;
  scopes: readonly string[];
  grantType: GrantType;
  authorizationURL: string | undefined;
  redirectURL: string | undefined;
  pkce: boolean;
  extraParams: Readonly<Record<string, string>>;
  refreshBuffer: number;
  authMethod: ClientAuthMethod;
}

function checkURL(option: string, value: unknown): string {
  if (typeof value !== 'string' || !URL.canParse(value)) throw new ConfigError(option, 'must be an absolute http(s) URL');
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(option, `must use http or https, got ${url.protocol}`);
  // RFC 6749 3.1: the endpoint URI must not include a fragment component.
  if (url.hash !== '') throw new ConfigError(option, 'must not contain a fragment');
  if (url.username || url.password) throw new ConfigError(option, 'must not contain credentials');
  return value;
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
  if (typeof config.clientId !== 'string' || config.clientId === '') throw new ConfigError('clientId', 'must be a non-empty string');
  if (config.clientSecret !== undefined && typeof config.clientSecret !== 'string') throw new ConfigError('clientSecret', 'must be a string');
  const clientSecret = config.clientSecret === '' ? undefined : config.clientSecret;
  const tokenURL = checkURL('tokenURL', config.tokenURL);
  if (!GRANTS.includes(config.grantType)) throw new ConfigError('grantType', `must be one of ${GRANTS.join(', ')}, got ${String(config.grantType)}`);
  const authMethod = config.tokenEndpointAuthMethod ?? (clientSecret === undefined ? 'none' : 'client_secret_basic');
  if (!AUTH_METHODS.includes(authMethod)) throw new ConfigError('tokenEndpointAuthMethod', `must be one of ${AUTH_METHODS.join(', ')}, got ${String(authMethod)}`);
  if (authMethod !== 'none' && clientSecret === undefined) throw new ConfigError('clientSecret', `is required with tokenEndpointAuthMethod ${authMethod}`);
  if (authMethod === 'none' && clientSecret !== undefined) throw new ConfigError('tokenEndpointAuthMethod', 'none is for public clients: remove clientSecret or pick client_secret_basic/client_secret_post');
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
    scopes: checkScopes(config.scopes),
    grantType: config.grantType,
    authorizationURL: config.authorizationURL === undefined ? undefined : checkURL('authorizationURL', config.authorizationURL),
    redirectURL: config.redirectURL === undefined ? undefined : checkURL('redirectURL', config.redirectURL),
    pkce,
    extraParams: checkExtraParams(config.extraParams),
    refreshBuffer,
    authMethod,
  };
  if (config.tokenCache !== undefined) {
    const cache = config.tokenCache as unknown as Record<string, unknown>;
    if (!['get', 'set', 'delete'].every((m) => typeof cache[m] === 'function')) throw new ConfigError('tokenCache', 'must implement get, set and delete');
  }
  checkGrant(resolved, config, options);
  return resolved;
}

function checkGrant(config: ResolvedConfig, raw: OAuth2Config, options: OAuth2Options): void {
  const isPublic = config.authMethod === 'none';
  if (config.grantType === 'client_credentials') {
    // RFC 6749 4.4: the client credentials grant is for confidential clients only.
    if (isPublic) throw new ConfigError('clientSecret', 'is required for grantType client_credentials (RFC 6749 4.4)');
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
