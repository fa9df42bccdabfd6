import { createClient, SluiceError, type Client } from '@sluice/core';
import type { ResolvedConfig } from './config.js';
import { TokenRequestError } from './errors.js';
import type { GrantType, Token } from './types.js';

/** Lifetime assumed when the server omits `expires_in` (RFC 6749 5.1 makes it only RECOMMENDED). */
export const DEFAULT_EXPIRES_IN = 3600_000;

/** Grant-specific parameters of one token request. */
export type GrantParams =
  | { grant_type: 'client_credentials' }
  | { grant_type: 'authorization_code'; code: string; redirect_uri: string; code_verifier?: string }
  | { grant_type: 'refresh_token'; refresh_token: string };

/** RFC 6749 2.3.1: client id and secret are form-urlencoded before they are joined for Basic auth. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * Talks to the token endpoint with a core client of its own (no base URL, no API plugins), so that API
 * credentials never reach the token endpoint and token requests never pass through the OAuth plugin.
 */
export class TokenEndpoint {
  private readonly http: Client;

  constructor(private readonly config: ResolvedConfig, timeout: number) {
    // POSTs are not retried by the core; the token manager owns backoff, and the endpoint must not redirect.
    this.http = createClient({ timeout, retry: false, maxRedirects: 0, throwHttpErrors: false });
  }

  /** Sends one token request and parses the answer (RFC 6749 5.1 / 5.2). */
  async request(grant: GrantParams, signal?: AbortSignal): Promise<Token> {
    const { config } = this;
    const grantType: GrantType = grant.grant_type;
    const form = new URLSearchParams();
    for (const [name, value] of Object.entries(grant)) if (value !== undefined) form.set(name, value);
    // RFC 6749 3.3: scopes go space-delimited into every token request.
    if (config.scopes.length > 0) form.set('scope', config.scopes.join(' '));
    for (const [name, value] of Object.entries(config.extraParams)) form.set(name, value);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (config.authMethod === 'client_secret_basic') {
      // RFC 6749 2.3.1: HTTP Basic with the form-urlencoded id and secret.
      const credentials = `${formEncode(config.clientId)}:${formEncode(config.clientSecret!)}`;
      headers['authorization'] = `Basic ${Buffer.from(credentials, 'utf8').toString('base64')}`;
    } else {
      // RFC 6749 3.2.1: a client that does not authenticate with a header identifies itself with client_id.
      form.set('client_id', config.clientId);
      // RFC 6749 2.3.1: the secret in the body, only when the client chose client_secret_post.
      if (config.authMethod === 'client_secret_post') form.set('client_secret', config.clientSecret!);
    }

    let response;
    try {
      // RFC 6749 3.2: token requests are POSTs with a form body.
      response = await this.http.request({ method: 'POST', path: config.tokenURL, headers, body: form.toString(), signal });
    } catch (cause) {
      const problem = cause instanceof SluiceError ? cause.message : 'the request failed';
      throw new TokenRequestError({ grantType, tokenURL: config.tokenURL, problem, cause });
    }
    let text: string;
    try {
      text = await response.text();
    } catch (cause) {
      throw new TokenRequestError({ grantType, tokenURL: config.tokenURL, status: response.status, problem: 'the response body could not be read', cause });
    }
    let body: Record<string, unknown> | undefined;
    try {
      const parsed: unknown = text === '' ? undefined : JSON.parse(text);
      if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
    } catch {
      body = undefined;
    }
    if (response.status !== 200) {
      // RFC 6749 5.2: error, error_description, error_uri in a JSON body.
      const error = typeof body?.['error'] === 'string' ? body['error'] : undefined;
      throw new TokenRequestError({
        grantType,
        tokenURL: config.tokenURL,
        status: response.status,
        error,
        errorDescription: typeof body?.['error_description'] === 'string' ? body['error_description'] : undefined,
        errorURI: typeof body?.['error_uri'] === 'string' ? body['error_uri'] : undefined,
        problem: 'the response is not an RFC 6749 error object',
      });
    }
    return this.parseToken(grantType, response.status, body);
  }

  /** RFC 6749 5.1: access_token and token_type are required, expires_in recommended, refresh_token optional. */
  private parseToken(grantType: GrantType, status: number, body: Record<string, unknown> | undefined): Token {
    const fail = (problem: string): never => {
      throw new TokenRequestError({ grantType, tokenURL: this.config.tokenURL, status, problem });
    };
    if (body === undefined) return fail('the response is not a JSON object');
    const accessToken = body['access_token'];
    if (typeof accessToken !== 'string' || accessToken === '') return fail('the response has no access_token');
    const tokenType = body['token_type'];
    // RFC 6749 7.1 / RFC 6750: only bearer tokens can be attached as `Authorization: Bearer` (case-insensitive).
    if (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer') {
      return fail(`token_type ${JSON.stringify(typeof tokenType === 'string' ? tokenType : null)} is not supported (Bearer only)`);
    }
    const rawExpiresIn = body['expires_in'];
    const seconds = typeof rawExpiresIn === 'string' ? Number(rawExpiresIn) : rawExpiresIn;
    const expiresIn = typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : DEFAULT_EXPIRES_IN;
    const token: Token = { accessToken, tokenType: 'Bearer', expiresIn, expiresAt: Date.now() + expiresIn };
    if (typeof body['refresh_token'] === 'string' && body['refresh_token'] !== '') token.refreshToken = body['refresh_token'];
    if (typeof body['scope'] === 'string') token.scope = body['scope'];
    return token;
  }

  async close(): Promise<void> {
    await this.http.close();
  }
}
