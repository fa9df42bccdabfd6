/**
 * `@sluice/oauth`: OAuth 2.0 for the sluice core client (SPEC 1.2, 2.1-2.3, 3.1, 4.2, 5, 6). A core
 * plugin that acquires, caches, refreshes and attaches bearer tokens (client credentials, authorization
 * code with PKCE, refresh token), plus the helpers of the authorization-code redirect.
 *
 * @packageDocumentation
 */
export { oauth2, forceRefresh, OAUTH2_PLUGIN, type OAuth2Plugin } from './plugin.js';
export { buildAuthorizationURL, verifyCallback, type AuthorizationRequest } from './authorization.js';
export { createCodeVerifier, codeChallengeS256 } from './pkce.js';
export { MemoryTokenCache } from './memory-cache.js';
export { TokenRequestError, TokenUnavailableError, StateMismatchError, AuthorizationError, DiscoveryError } from './errors.js';
export type { AuthServerHTTP, AuthServerRequest, AuthServerResponse } from './auth-server-http.js';
import './events.js';
export type {
  OAuth2Config, OAuth2Options, GrantType, ClientAuthMethod, Token, TokenCache, TokenEvent, TokenEventType,
} from './types.js';
