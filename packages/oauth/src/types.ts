import type { JsonWebKey, KeyObject } from 'node:crypto';
import type { Transport, UndiciTransportOptions } from '@sluice/core';

/** Grants the plugin can use to obtain tokens (SPEC 2.1 `GrantType`). */
export type GrantType = 'client_credentials' | 'authorization_code' | 'refresh_token';

/**
 * How the client authenticates at the token endpoint: HTTP Basic (RFC 6749 2.3.1, the default when a
 * secret is given), the secret in the form body, a JWT signed with the secret (`client_secret_jwt`) or
 * with a private key (`private_key_jwt`, the default when `privateKey` is given; RFC 7523), or `none`
 * for a public client (the default without either). `tls_client_auth` and `self_signed_tls_client_auth`
 * (RFC 8705) authenticate with the TLS client certificate of the token transport (`tls.cert` + `tls.key`).
 */
export type ClientAuthMethod =
  | 'client_secret_basic' | 'client_secret_post' | 'client_secret_jwt' | 'private_key_jwt' | 'none'
  | 'tls_client_auth' | 'self_signed_tls_client_auth';

/**
 * An access token as the plugin holds and caches it. Plain JSON, so a shared cache can serialize it.
 * Never log it: it is a credential.
 */
export interface Token {
  /** The bearer access token. */
  accessToken: string;
  /** Token type from the response; always `Bearer` here (RFC 6750). */
  tokenType: string;
  /** When the token expires, epoch milliseconds. */
  expiresAt: number;
  /** Lifetime granted by the server (`expires_in`), in milliseconds. */
  expiresIn: number;
  /** The latest refresh token, when the server issued one (rotated ones replace it). */
  refreshToken?: string | undefined;
  /** Scope the server granted, when it said. */
  scope?: string | undefined;
}

/**
 * Where tokens are kept between requests (SPEC 2.2). The default {@link MemoryTokenCache} suits one
 * process; several instances should share one store (Redis, a database) so they do not each acquire
 * tokens (`@sluice/redis` has one). Every method is async; `get` resolves `undefined` when nothing (or
 * nothing unexpired, or only the `stale` token) is stored.
 *
 * @example
 * ```ts
 * const cache: TokenCache = {
 *   async get(key, stale) {
 *     const v = await redis.get(key); const token = v ? JSON.parse(v) : undefined
 *     return token?.accessToken === stale ? undefined : token
 *   },
 *   async set(key, token, expiresAt) { await redis.set(key, JSON.stringify(token), { PXAT: expiresAt }) },
 *   async delete(key) { await redis.del(key) },
 * }
 * ```
 */
export interface TokenCache {
  /**
   * The stored token, or `undefined`. `stale`, when given, is an access token the caller knows is no
   * good any more (the API refused it, or it is due for refresh): the cache should not return it. A
   * shared cache may use such a miss to let one instance acquire the replacement while others wait.
   */
  get(key: string, stale?: string): Promise<Token | undefined>;
  /** Stores `token` until `expiresAt` (epoch ms). */
  set(key: string, token: Token, expiresAt: number): Promise<void>;
  /** Removes the token; called on forced refresh (SPEC 2.2). */
  delete(key: string): Promise<void>;
  /**
   * Optional: called when the token request that followed a miss (`get` resolving `undefined`) or a
   * `delete` failed, or gave a token that is not stored. A shared cache that made other instances wait
   * for this one's token lets them go now (releases a single-flight lock this instance holds, and only
   * that one) instead of when the lock expires.
   */
  release?(key: string): Promise<void>;
}

/** Lifecycle event types (SPEC 6). */
export type TokenEventType = 'TokenAcquired' | 'TokenRefreshed' | 'TokenExpired' | 'TokenRefreshFailed';

/**
 * A token lifecycle event (SPEC 2.3). `expiresIn` (ms) comes with `TokenAcquired` and `TokenRefreshed`,
 * `error` with `TokenRefreshFailed`. Events never carry the token itself.
 *
 * @example
 * ```ts
 * oauth2(config, { onTokenEvent: (e) => console.log(e.type, e.expiresIn ?? '', e.error?.message ?? '') })
 * ```
 */
export interface TokenEvent {
  type: TokenEventType;
  /** Lifetime of the new token in milliseconds. */
  expiresIn?: number | undefined;
  /** Why a refresh failed. */
  error?: Error | undefined;
}

/**
 * OAuth configuration (SPEC 2.1). Checked when {@link oauth2} is called; invalid combinations throw
 * `ConfigError`.
 *
 * @example
 * ```ts
 * const config: OAuth2Config = {
 *   clientId: 'billing', clientSecret: process.env.BILLING_SECRET,
 *   tokenURL: 'https://login.example.com/oauth/token', grantType: 'client_credentials', scopes: ['invoices:read'],
 * }
 * ```
 */
export interface OAuth2Config {
  /** Client identifier issued by the authorization server. */
  clientId: string;
  /** Secret of a confidential client; leave out for a public client (which then needs PKCE). */
  clientSecret?: string | undefined;
  /** Full URL of the token endpoint. Required unless `issuer` is given. https, or http on a loopback host. */
  tokenURL?: string | undefined;
  /**
   * The authorization server's issuer identifier: the token and authorization endpoints are discovered
   * from `/.well-known/openid-configuration`, else `/.well-known/oauth-authorization-server` (RFC 8414),
   * once per process, with the `issuer` of the document checked. Endpoints given here win.
   */
  issuer?: string | undefined;
  /** Scopes to request (sent space-separated, RFC 6749 3.3). */
  scopes?: readonly string[] | undefined;
  /** The grant that obtains the first token. */
  grantType: GrantType;
  /** Authorization endpoint the user's browser is sent to (authorization_code only). */
  authorizationURL?: string | undefined;
  /** Callback URL registered with the server (authorization_code only). */
  redirectURL?: string | undefined;
  /** Use PKCE with S256 (RFC 7636). Default true for authorization_code; required for public clients. */
  pkce?: boolean | undefined;
  /** Extra form parameters added to every token request, such as `audience` or `resource`. */
  extraParams?: Readonly<Record<string, string>> | undefined;
  /**
   * How long before expiry a request starts a background refresh, in ms; a token living less than
   * twice this is refreshed at half its lifetime. Default 30000.
   */
  refreshBuffer?: number | undefined;
  /** Token store; default a {@link MemoryTokenCache} of this plugin's own. */
  tokenCache?: TokenCache | undefined;
  /**
   * Client authentication at the token endpoint. Default `client_secret_basic` with a secret,
   * `private_key_jwt` with a `privateKey`, else `none`.
   */
  tokenEndpointAuthMethod?: ClientAuthMethod | undefined;
  /** The key that signs `private_key_jwt` assertions: PEM (PKCS#8, PKCS#1 or SEC1), a private JWK or a `KeyObject`. */
  privateKey?: string | KeyObject | JsonWebKey | undefined;
  /** `kid` header of the assertions, when the server holds several keys of this client. */
  privateKeyId?: string | undefined;
  /**
   * JWS algorithm of the assertions: `HS256` (default), `HS384` or `HS512` for `client_secret_jwt`; for
   * `private_key_jwt` by default RS256 for RSA keys, ES256/ES384/ES512 by curve, EdDSA for Ed25519.
   */
  signingAlgorithm?: string | undefined;
  /**
   * Accept plain `http:` authorization server URLs on hosts other than loopback. Credentials and tokens
   * then cross the network unencrypted: for test rigs only. Default false.
   */
  allowInsecureHTTP?: boolean | undefined;
}

/**
 * Per-plugin options of {@link oauth2} (SPEC 4.2 `WithAuthorizationCode`, `WithTokenObserver`).
 *
 * @example
 * ```ts
 * oauth2(config, { authorizationCode: code, codeVerifier, onTokenEvent: (e) => metrics.count(e.type) })
 * ```
 */
export interface OAuth2Options {
  /** The authorization code from the callback; exchanged once, then forgotten. */
  authorizationCode?: string | undefined;
  /** The PKCE verifier returned by `buildAuthorizationURL` for this code. */
  codeVerifier?: string | undefined;
  /** A refresh token obtained earlier (required for grantType `refresh_token`). */
  refreshToken?: string | undefined;
  /** Receives the lifecycle events of SPEC 6. Exceptions it throws are ignored. */
  onTokenEvent?: ((event: TokenEvent) => void) | undefined;
  /**
   * Cache key to use instead of the derived one. Required with a custom `tokenCache` for user grants
   * (authorization_code, refresh_token), so that two users never share a key.
   */
  cacheKey?: string | undefined;
  /** Backoff between failed background refreshes, in ms. Default `{ waitBase: 1000, maxWait: 30000 }`. */
  refreshRetry?: { waitBase?: number | undefined; maxWait?: number | undefined } | undefined;
  /** Timeout of each token request in ms. Default 30000. */
  timeout?: number | undefined;
  /**
   * Retries of a token request made while no valid token is held (the first one, or after expiry), on
   * network errors and 5xx answers. Default `{ maxAttempts: 3, waitBase: 200, maxWait: 2000 }`; `false`
   * for a single attempt.
   */
  tokenRetry?: { maxAttempts?: number | undefined; waitBase?: number | undefined; maxWait?: number | undefined } | false | undefined;
  /** Lifetime in ms assumed when the token response has no `expires_in`. Default 3600000 (one hour). */
  defaultExpiresIn?: number | undefined;
  /**
   * How token requests and discovery travel. Default: the API client's own transport, so its `proxy` and
   * `tls` settings (private CA, client certificate) reach the authorization server too. Give
   * {@link UndiciTransportOptions} (`{ proxy, tls }`) for a transport of the plugin's own, closed with the
   * client, or a {@link Transport} you create and close yourself.
   */
  tokenTransport?: Transport | UndiciTransportOptions | undefined;
  /**
   * Least time in ms between two token requests the plugin makes on its own (acquisitions and
   * proactive refreshes), so a very short token lifetime cannot turn into a request storm. Default 1000.
   */
  minTokenInterval?: number | undefined;
}
