import { KnownSecrets, redactURL, SluiceError, type EventSink } from '@sluice/core';
import type { AuthServerHTTP, AuthServerResponse } from './auth-server-http.js';
import { authenticateClient } from './client-auth.js';
import type { ResolvedConfig } from './config.js';
import { serverEndpoints } from './discovery.js';
import { TokenRequestError } from './errors.js';
import './events.js';
import type { GrantType, Token } from './types.js';

/** Lifetime assumed when the server omits `expires_in` (RFC 6749 5.1 makes it only RECOMMENDED). */
export const DEFAULT_EXPIRES_IN = 3600_000;

/** Grant-specific parameters of one token request. */
export type GrantParams =
  | { grant_type: 'client_credentials' }
  | { grant_type: 'authorization_code'; code: string; redirect_uri: string; code_verifier?: string }
  | { grant_type: 'refresh_token'; refresh_token: string };

/** A token as the endpoint answered it; `expiresIn` (ms) may be 0 or negative: already expired. */
export type IssuedToken = Omit<Token, 'expiresAt'>;

/** What the token endpoint needs besides the configuration. */
export interface TokenEndpointInit {
  http: AuthServerHTTP;
  /** Lifetime in ms of a token whose response has no `expires_in`. */
  defaultExpiresIn: number;
  /** The client's event sink, once the plugin is set up. */
  events: () => EventSink | undefined;
}

/** Sends token requests (RFC 6749 3.2) through the plugin's {@link AuthServerHTTP} and parses the answers. */
export class TokenEndpoint {
  constructor(private readonly config: ResolvedConfig, private readonly init: TokenEndpointInit) {}

  /** Sends one token request and parses the answer (RFC 6749 5.1 / 5.2). */
  async request(grant: GrantParams, signal?: AbortSignal): Promise<IssuedToken> {
    const { config } = this;
    const grantType: GrantType = grant.grant_type;
    const { tokenURL } = await serverEndpoints(config, this.init.http, signal);
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(grant)) if (value !== undefined) form.set(name, value);
    // RFC 6749 3.3: scopes go space-delimited into every token request.
    if (config.scopes.length > 0) form.set('scope', config.scopes.join(' '));
    for (const [name, value] of Object.entries(config.extraParams)) form.set(name, value);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    // Everything secret the client sends, so an echo of it in the answer is scrubbed (SPEC 5.6).
    const secrets = new KnownSecrets();
    if (grant.grant_type === 'authorization_code') secrets.add(grant.code, grant.code_verifier);
    if (grant.grant_type === 'refresh_token') secrets.add(grant.refresh_token);
    await authenticateClient(config, tokenURL, headers, form, secrets);
    const fail = (init: Omit<ConstructorParameters<typeof TokenRequestError>[0], 'grantType' | 'tokenURL'>): TokenRequestError =>
      new TokenRequestError({
        ...init,
        grantType,
        tokenURL,
        errorDescription: secrets.scrub(init.errorDescription),
        errorURI: secrets.scrub(init.errorURI),
        ...(init.problem === undefined ? {} : { problem: secrets.scrub(init.problem) }),
      });

    const events = this.init.events();
    const shownURL = events?.enabled ? redactURL(tokenURL) : '';
    events?.emit('oauth.token.request', { grantType, tokenURL: shownURL });
    const started = performance.now();
    const report = (status: number | undefined, error: string | undefined, ok = false): void => {
      events?.emit('oauth.token.response', { grantType, tokenURL: shownURL, ok, status, error, durationMs: performance.now() - started });
    };
    let response: AuthServerResponse;
    try {
      // RFC 6749 3.2: token requests are POSTs with a form body.
      response = await this.init.http.send({ method: 'POST', url: tokenURL, headers, body: form.toString(), signal });
    } catch (cause) {
      report(undefined, undefined);
      const problem = cause instanceof SluiceError ? cause.message : 'the request failed';
      throw fail({ problem, cause });
    }
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = response.text === '' ? undefined : JSON.parse(response.text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (response.status !== 200) {
      // RFC 6749 5.2: error, error_description, error_uri in a JSON body.
      const error = typeof body?.['error'] === 'string' ? secrets.scrub(body['error']) : undefined;
      report(response.status, error);
      throw fail({
        status: response.status,
        error,
        errorDescription: typeof body?.['error_description'] === 'string' ? body['error_description'] : undefined,
        errorURI: typeof body?.['error_uri'] === 'string' ? body['error_uri'] : undefined,
        problem: 'the response is not an RFC 6749 error object',
      });
    }
    try {
      const token = this.parseToken(body);
      report(200, undefined, true);
      return token;
    } catch (problem) {
      report(200, undefined);
      throw fail({ status: 200, problem: String((problem as Error).message) });
    }
  }

  /** RFC 6749 5.1: access_token and token_type are required, expires_in recommended, refresh_token optional. */
  private parseToken(body: Record<string, unknown> | undefined): IssuedToken {
    if (body === undefined) throw new Error('the response is not a JSON object');
    const accessToken = body['access_token'];
    if (typeof accessToken !== 'string' || accessToken === '') throw new Error('the response has no access_token');
    const tokenType = body['token_type'];
    // RFC 6749 7.1 / RFC 6750: only bearer tokens can be attached as `Authorization: Bearer` (case-insensitive).
    if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') {
      throw new Error(`token_type ${JSON.stringify(typeof tokenType === 'string' ? tokenType : null)} is not supported (Bearer only)`);
    }
    const token: IssuedToken = { accessToken, tokenType: 'Bearer', expiresIn: this.expiresIn(body['expires_in']) };
    if (typeof body['refresh_token'] === 'string' && body['refresh_token'] !== '') token.refreshToken = body['refresh_token'];
    if (typeof body['scope'] === 'string') token.scope = body['scope'];
    return token;
  }

  /**
   * RFC 6749 5.1 `expires_in` in ms: absent (or null) gives `defaultExpiresIn`; a number or a numeric
   * string counts in seconds; 0 or negative means already expired (the caller uses it once, caches nothing).
   */
  private expiresIn(raw: unknown): number {
    if (raw === undefined || raw === null) return this.init.defaultExpiresIn;
    const seconds = typeof raw === 'string' && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof seconds !== 'number' || !Number.isFinite(seconds)) throw new Error(`expires_in ${JSON.stringify(raw)} is not a number of seconds`);
    return seconds * 1000;
  }
}
