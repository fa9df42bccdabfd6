import { ConfigError } from '@sluice/core';
import { timingSafeEqual } from 'node:crypto';
import { createAuthServerHTTP } from './auth-server-http.js';
import { resolveConfig, type ResolvedConfig } from './config.js';
import { serverEndpoints } from './discovery.js';
import { AuthorizationError, StateMismatchError } from './errors.js';
import { codeChallengeS256, createCodeVerifier, randomToken } from './pkce.js';
import type { OAuth2Config } from './types.js';

/** What {@link buildAuthorizationURL} returns: keep `state` and `codeVerifier` in the user's session. */
export interface AuthorizationRequest {
  /** Where to redirect the user's browser. */
  url: string;
  /** The state to compare with the callback's (`verifyCallback`). */
  state: string;
  /** The PKCE verifier to pass with the code (`oauth2(config, { codeVerifier })`); undefined without PKCE. */
  codeVerifier: string | undefined;
}

/**
 * Builds the authorization request the user's browser is sent to (RFC 6749 4.1.1): `response_type=code`,
 * `client_id`, `redirect_uri`, `scope`, a fresh `state` of 256 random bits and, with PKCE, an S256
 * `code_challenge`. Store `state` and `codeVerifier` server-side (in the session), never in the URL.
 *
 * @example
 * ```ts
 * const { url, state, codeVerifier } = await buildAuthorizationURL(config)
 * session.oauth = { state, codeVerifier }
 * res.writeHead(302, { location: url }).end()
 * ```
 */
export async function buildAuthorizationURL(config: OAuth2Config): Promise<AuthorizationRequest> {
  const resolved = resolveConfig({ ...config, grantType: 'authorization_code', tokenCache: undefined });
  const authorizationURL = await authorizationEndpoint(resolved);
  if (authorizationURL === undefined) throw new ConfigError('authorizationURL', 'is required to build an authorization URL (or an issuer whose metadata names it)');
  const url = new URL(authorizationURL);
  const params = url.searchParams;
  // RFC 6749 4.1.1: the parameters of an authorization request.
  params.set('response_type', 'code');
  params.set('client_id', resolved.clientId);
  params.set('redirect_uri', resolved.redirectURL!);
  // RFC 6749 3.3: scopes are space-delimited.
  if (resolved.scopes.length > 0) params.set('scope', resolved.scopes.join(' '));
  // RFC 6749 10.12: an unguessable state binds the callback to this user's session (256 bits here).
  const state = randomToken(32);
  params.set('state', state);
  let codeVerifier: string | undefined;
  if (resolved.pkce) {
    codeVerifier = createCodeVerifier();
    // RFC 7636 4.3 and RFC 9700 2.1.1: S256, never plain.
    params.set('code_challenge', await codeChallengeS256(codeVerifier));
    params.set('code_challenge_method', 'S256');
  }
  return { url: url.href, state, codeVerifier };
}

/** The configured authorization endpoint, else the one discovered from the issuer. */
async function authorizationEndpoint(config: ResolvedConfig): Promise<string | undefined> {
  if (config.authorizationURL !== undefined || config.issuer === undefined) return config.authorizationURL;
  const http = createAuthServerHTTP({ timeout: 30_000 });
  try {
    return (await serverEndpoints(config, http)).authorizationURL;
  } finally {
    await http.close();
  }
}

/** Compares two strings in time independent of where they differ (RFC 6749 10.12 state check). */
function sameState(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * Checks an authorization callback (RFC 6749 4.1.2) and returns its `code`. Throws
 * {@link StateMismatchError} when `state` is missing or differs from `expectedState` (compared in constant
 * time), and {@link AuthorizationError} when the server sent `error` instead of a code. Give it the full
 * callback URL or its query parameters.
 *
 * @example
 * ```ts
 * try {
 *   const code = verifyCallback(new URL(req.url!, 'http://localhost'), session.oauth.state)
 * } catch (err) {
 *   if (err instanceof StateMismatchError) return res.writeHead(400).end('state mismatch')
 *   throw err
 * }
 * ```
 */
export function verifyCallback(callback: string | URL | URLSearchParams, expectedState: string): string {
  const params = callback instanceof URLSearchParams ? callback : new URL(callback).searchParams;
  if (typeof expectedState !== 'string' || expectedState === '') throw new ConfigError('expectedState', 'must be the non-empty state from buildAuthorizationURL');
  const state = params.get('state');
  // RFC 6749 10.12 / RFC 9700 4.7: reject a callback whose state is not the one we issued.
  if (state === null || !sameState(state, expectedState)) throw new StateMismatchError();
  const error = params.get('error');
  // RFC 6749 4.1.2.1: the server reports a refused authorization with `error`.
  if (error !== null) throw new AuthorizationError(error, params.get('error_description') ?? undefined, params.get('error_uri') ?? undefined);
  const code = params.get('code');
  if (code === null || code === '') throw new AuthorizationError('invalid_request', 'the callback carries neither code nor error');
  return code;
}
