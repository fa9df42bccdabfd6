import { AbortError, checkOptionKeys, ConfigError, KnownSecrets, type Client, type EventSink, type Plugin, type PluginRequest } from '@sluice/core';
import { createAuthServerHTTP } from './auth-server-http.js';
import { cacheKeyFor } from './cache-key.js';
import { checkCertificateAuth, formEncode } from './client-auth.js';
import { systemClock } from './clock.js';
import { resolveConfig } from './config.js';
import { MemoryTokenCache } from './memory-cache.js';
import { DEFAULT_EXPIRES_IN, TokenEndpoint } from './token-endpoint.js';
import { TokenManager, type TokenRetry } from './token-manager.js';
import type { OAuth2Config, OAuth2Options, Token } from './types.js';

/** Name of the plugin, for `client.plugin(OAUTH2_PLUGIN)`. */
export const OAUTH2_PLUGIN = 'oauth2';

/** The core plugin {@link oauth2} returns, with the operations {@link forceRefresh} uses. */
export interface OAuth2Plugin extends Plugin {
  readonly name: typeof OAUTH2_PLUGIN;
  /** The token cache key of this configuration (never contains the secret). */
  readonly cacheKey: string;
  /** Deletes the cached token and fetches a new one at once. */
  forceRefresh(): Promise<void>;
}

/** Waits for `promise` unless the caller's signal aborts first; the shared acquisition goes on for others. */
function untilAborted<T>(promise: Promise<T>, request: PluginRequest): Promise<T> {
  const { signal } = request;
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(new AbortError(request.method, request.url, { cause: signal.reason }));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new AbortError(request.method, request.url, { cause: signal.reason }));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** A number of ms option: finite and at least `min`. */
function checkMs(option: string, value: unknown, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min) throw new ConfigError(option, `must be a number of ms >= ${min}, got ${String(value)}`);
  return value;
}

function resolveTokenRetry(value: OAuth2Options['tokenRetry']): TokenRetry {
  if (value === false) return { maxAttempts: 1, waitBase: 200, maxWait: 2000 };
  if (value !== undefined && (value === null || typeof value !== 'object')) throw new ConfigError('tokenRetry', 'must be an object or false');
  const given = value ?? {};
  checkOptionKeys('tokenRetry', given, ['maxAttempts', 'waitBase', 'maxWait'], { limit: 'maxAttempts', retries: 'maxAttempts', attempts: 'maxAttempts' });
  const maxAttempts = given.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new ConfigError('tokenRetry.maxAttempts', `must be an integer >= 1, got ${String(maxAttempts)}`);
  const waitBase = checkMs('tokenRetry.waitBase', given.waitBase, 200, 1);
  const maxWait = checkMs('tokenRetry.maxWait', given.maxWait, Math.max(2000, waitBase), waitBase);
  return { maxAttempts, waitBase, maxWait };
}

/**
 * The OAuth 2.0 plugin for a core client (SPEC 4.2 `WithOAuth2`). The first request to the client's
 * origin fetches a token (one token request however many requests wait), every request to that origin
 * carries `Authorization: Bearer <token>` and no request to another origin does; a request that finds
 * the token due (less than min(`refreshBuffer`, lifetime / 2) left) starts a background refresh, and a
 * 401 renews it and resends the request once. Throws `ConfigError` at once for an invalid configuration.
 *
 * @example
 * ```ts
 * import { createClient } from '@sluice/core'
 * import { oauth2 } from '@sluice/oauth'
 *
 * const client = createClient({
 *   baseURL: 'https://api.example.com/v1',
 *   plugins: [oauth2({
 *     clientId: 'reporting', clientSecret: process.env.REPORTING_SECRET,
 *     tokenURL: 'https://login.example.com/oauth2/token', grantType: 'client_credentials', scopes: ['reports:read'],
 *   })],
 * })
 * const reports = await client.getJSON('reports')
 * await client.close() // stops the refresh timers
 * ```
 */
export function oauth2(config: OAuth2Config, options: OAuth2Options = {}): OAuth2Plugin {
  const resolved = resolveConfig(config, options);
  if (options.onTokenEvent !== undefined && typeof options.onTokenEvent !== 'function') throw new ConfigError('onTokenEvent', 'must be a function');
  if (options.refreshRetry !== undefined) {
    if (options.refreshRetry === null || typeof options.refreshRetry !== 'object') throw new ConfigError('refreshRetry', 'must be an object');
    checkOptionKeys('refreshRetry', options.refreshRetry, ['waitBase', 'maxWait'], { base: 'waitBase', delay: 'waitBase', max: 'maxWait', maxDelay: 'maxWait' });
  }
  const waitBase = options.refreshRetry?.waitBase ?? 1000;
  const maxWait = options.refreshRetry?.maxWait ?? Math.max(30_000, waitBase);
  if (!(waitBase > 0) || !(maxWait >= waitBase)) throw new ConfigError('refreshRetry', 'needs waitBase > 0 and maxWait >= waitBase (ms)');
  const timeout = options.timeout ?? 30_000;
  if (!(timeout > 0)) throw new ConfigError('timeout', `must be a number of ms > 0, got ${String(timeout)}`);
  if (options.cacheKey !== undefined && (typeof options.cacheKey !== 'string' || options.cacheKey === '')) throw new ConfigError('cacheKey', 'must be a non-empty string');
  const cacheKey = options.cacheKey ?? cacheKeyFor(resolved);
  // Every call to the authorization server (token requests, discovery) goes through this one object.
  const http = createAuthServerHTTP({ timeout, tokenTransport: options.tokenTransport });
  let events: EventSink | undefined;
  // The client's registry once set up: the configured secrets, then every token and refresh token obtained.
  let secrets = new KnownSecrets();
  const register = (target: KnownSecrets): KnownSecrets => target.add(
    resolved.clientSecret, options.refreshToken, options.authorizationCode, options.codeVerifier,
    // RFC 6749 2.3.1: what client_secret_basic encodes (its base64 form is among the forms scrubbed).
    resolved.clientSecret === undefined ? undefined : `${formEncode(resolved.clientId)}:${formEncode(resolved.clientSecret)}`,
  );
  register(secrets);
  const onTokenEvent = options.onTokenEvent;
  let registered: Token | undefined;
  let header = '';
  const endpoint = new TokenEndpoint(resolved, {
    http,
    defaultExpiresIn: checkMs('defaultExpiresIn', options.defaultExpiresIn, DEFAULT_EXPIRES_IN, 1),
    events: () => events,
  });
  const manager = new TokenManager({
    config: resolved,
    endpoint,
    cache: config.tokenCache ?? new MemoryTokenCache(),
    cacheKey,
    authorizationCode: options.authorizationCode,
    codeVerifier: options.codeVerifier,
    refreshToken: options.refreshToken,
    onTokenEvent: onTokenEvent === undefined ? undefined : (event) => {
      if (event.error !== undefined) secrets.scrubError(event.error);
      onTokenEvent(event);
    },
    refreshRetry: { waitBase, maxWait },
    tokenRetry: resolveTokenRetry(options.tokenRetry),
    minTokenInterval: checkMs('minTokenInterval', options.minTokenInterval, 1000, 0),
    clock: systemClock,
  });
  /** Requests this plugin already resent once after a 401 (touched only on a 401). */
  const resent = new WeakSet<PluginRequest>();

  const attach = (request: PluginRequest, token: Token): void => {
    // RFC 6750 2.1: the bearer token travels in the Authorization header.
    // Each token once (an identity check per request): its header is built once, and an API that echoes it gets it scrubbed.
    if (token !== registered) {
      secrets.addRecent(token.refreshToken, token.accessToken);
      registered = token;
      header = `Bearer ${token.accessToken}`;
    }
    request.headers['authorization'] = header;
  };

  return {
    name: OAUTH2_PLUGIN,
    cacheKey,
    credentialHeaders: ['authorization'],
    setup(client: Client) {
      if (client.origin === undefined) throw new ConfigError('baseURL', 'is required with the oauth2 plugin: the token is only sent to the base URL origin');
      events = client.events;
      secrets = register(client.secrets);
      // One proxy/TLS configuration for API and token requests: the API client's transport, unless tokenTransport.
      http.useClientTransport(client.transport);
      checkCertificateAuth(resolved.authMethod, http.transport);
    },
    onRequest(request, client) {
      // The token belongs to the API: never sent to another origin (RFC 9700 2.3, RFC 6750 5.3).
      if (request.origin !== client.origin) return;
      const token = manager.peek();
      if (token !== undefined) {
        attach(request, token);
        return;
      }
      return untilAborted(manager.get(), request).then((fresh) => attach(request, fresh));
    },
    onResponse(response, request, client) {
      // RFC 6750 3.1: 401 means the token was not accepted; renew it and resend once.
      if (response.status !== 401 || request.origin !== client.origin || resent.has(request)) return undefined;
      // On its own origin every request carries the token onRequest attached: that is the one refused.
      const header = request.headers['authorization'];
      if (header === undefined || !header.startsWith('Bearer ')) return undefined;
      resent.add(request);
      return manager.invalidate(header.slice('Bearer '.length)).then(() => 'resend' as const);
    },
    async forceRefresh() {
      try {
        await manager.forceRefresh();
      } catch (error) {
        throw secrets.scrubError(error);
      }
    },
    async close() {
      manager.close();
      await http.close();
    },
  };
}

/**
 * Renews the token of a client's {@link oauth2} plugin now, whatever its expiry (SPEC 4.2 ForceRefresh):
 * the cached token is deleted through the cache's `delete` and a new one fetched. Rejects with the
 * token request's error when that fails (and emits `TokenRefreshFailed`).
 *
 * @example
 * ```ts
 * await forceRefresh(client) // for example after the user's permissions changed
 * ```
 */
export async function forceRefresh(client: Client): Promise<void> {
  const plugin = client.plugin<OAuth2Plugin>(OAUTH2_PLUGIN);
  if (plugin === undefined || typeof plugin.forceRefresh !== 'function') throw new ConfigError('client', 'has no oauth2 plugin');
  await plugin.forceRefresh();
}
