import { redactURL, SluiceError } from '@sluice/core';

/**
 * The token endpoint refused or could not be reached. `error`, `errorDescription` and `errorURI` are the
 * RFC 6749 section 5.2 fields of the server's answer when it sent one; `status` is its HTTP status
 * (undefined when no response arrived, then `cause` says why). Never carries a secret, code or token.
 *
 * @example
 * ```ts
 * try { await client.get('me') } catch (err) {
 *   if (err instanceof TokenRequestError && err.error === 'invalid_grant') redirectToLogin()
 * }
 * ```
 */
export class TokenRequestError extends SluiceError {
  /** RFC 6749 5.2 error code, such as `invalid_client` or `invalid_grant`. */
  readonly error: string | undefined;
  /** RFC 6749 5.2 human-readable description from the server. */
  readonly errorDescription: string | undefined;
  /** RFC 6749 5.2 URI of a page about the error. */
  readonly errorURI: string | undefined;
  /** HTTP status of the token response; undefined when none arrived. */
  readonly status: number | undefined;
  /** The grant that was requested. */
  readonly grantType: string;

  constructor(init: {
    grantType: string;
    tokenURL: string;
    status?: number | undefined;
    error?: string | undefined;
    errorDescription?: string | undefined;
    errorURI?: string | undefined;
    problem?: string | undefined;
    cause?: unknown;
  }) {
    const detail = init.error !== undefined
      ? `${init.error}${init.errorDescription ? ` (${init.errorDescription})` : ''}`
      : init.problem ?? 'unexpected response';
    const status = init.status === undefined ? '' : ` with status ${init.status}`;
    super(`Token request (${init.grantType}) to ${redactURL(init.tokenURL)} failed${status}: ${detail}`, { cause: init.cause });
    this.error = init.error;
    this.errorDescription = init.errorDescription;
    this.errorURI = init.errorURI;
    this.status = init.status;
    this.grantType = init.grantType;
  }
}

/**
 * No token can be obtained without the user: the authorization code was already exchanged (codes are
 * single-use, RFC 6749 4.1.2) and there is no refresh token. Send the user through the authorization
 * flow again.
 */
export class TokenUnavailableError extends SluiceError {}

/**
 * The `state` of an authorization callback is not the one issued (RFC 6749 10.12): the callback may be
 * forged and must be rejected; a web app answers 400.
 */
export class StateMismatchError extends SluiceError {
  constructor() {
    super('The callback state does not match the state issued with the authorization request');
  }
}

/**
 * The authorization server sent the user back with an error instead of a code (RFC 6749 4.1.2.1),
 * for example `access_denied` when the user declined.
 */
export class AuthorizationError extends SluiceError {
  /** RFC 6749 4.1.2.1 error code. */
  readonly error: string;
  /** Human-readable description from the server, when given. */
  readonly errorDescription: string | undefined;
  /** URI of a page about the error, when given. */
  readonly errorURI: string | undefined;

  constructor(error: string, errorDescription?: string, errorURI?: string) {
    super(`Authorization failed: ${error}${errorDescription ? ` (${errorDescription})` : ''}`);
    this.error = error;
    this.errorDescription = errorDescription;
    this.errorURI = errorURI;
  }
}

/**
 * The authorization server's metadata could not be discovered from `issuer` (RFC 8414, OpenID Connect
 * Discovery 1.0): both well-known documents failed, the document is not JSON, lacks `token_endpoint`,
 * names an endpoint that is not https, or carries an `issuer` other than the configured one (RFC 8414
 * 3.3, a defence against mix-up attacks). `status` is the last HTTP status seen, when there was one.
 *
 * @example
 * ```ts
 * try { await client.get('me') } catch (err) {
 *   if (err instanceof DiscoveryError) console.error(err.issuer, err.status, err.message)
 * }
 * ```
 */
export class DiscoveryError extends SluiceError {
  /** The configured issuer (it has no query or fragment, RFC 8414 2). */
  readonly issuer: string;
  /** HTTP status of the last metadata response; undefined when none arrived. */
  readonly status: number | undefined;

  constructor(issuer: string, problem: string, init: { status?: number | undefined; cause?: unknown } = {}) {
    super(`Discovery of ${issuer} failed: ${problem}`, { cause: init.cause });
    this.issuer = issuer;
    this.status = init.status;
  }
}
