// The one line `sluice` prints for a failure (with a hint where one helps, known secrets scrubbed) and
// the exit code of an error. Loaded when a command has failed or a service was opened: it takes the
// error classes of @sluice/core and @sluice/odata.
import { ConfigError, HttpError, NetworkError, SluiceError, TimeoutError, type KnownSecrets } from '@sluice/core';
import { MetadataParseError, PageError, ResponseSizeError } from '@sluice/odata';
import { attemptsTo } from './attempts.js';
import { DeltaLinkRefused, EXIT, Interrupted, UsageError } from './errors.js';
import { describeSizeLimit } from './limits.js';

/** OpenSSL's verification failures of a server certificate whose CA is not trusted. */
const UNTRUSTED_CERTIFICATE = /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|CERT_UNTRUSTED)$/;

/** What the user can do about an error, when something useful can be said. */
function hintFor(error: unknown): string | undefined {
  if (error instanceof UsageError || error instanceof DeltaLinkRefused) return error.hint;
  // A page that failed for good: the hint is about why it failed.
  if (error instanceof PageError) return hintFor(error.cause);
  if (error instanceof HttpError && (error.status === 401 || error.status === 403)) {
    return 'check the credentials (--token, --user/--password, --client-id/--client-secret/--token-url or SLUICE_* variables)';
  }
  if (error instanceof HttpError && error.status === 404) return 'check the service URL and the entity set name (sluice metadata <service-url> lists them)';
  if (error instanceof SluiceError && /text\/html/i.test(error.message)) {
    return 'the service answered an HTML page (a login page?): check the URL and the credentials';
  }
  if (error instanceof SluiceError && /detect the OData version/.test(error.message)) {
    return 'that URL does not look like an OData service root (an HTML login page?): check the URL and the credentials, or pass --version 2 or 4';
  }
  if (error instanceof MetadataParseError) return 'that URL did not answer OData $metadata (an HTML login page?): check the service URL and the credentials';
  if (error instanceof NetworkError && UNTRUSTED_CERTIFICATE.test(error.code ?? '')) {
    return "the server's certificate is not signed by a CA this machine trusts: give its CA with --ca <file> (PEM)";
  }
  if (error instanceof NetworkError && error.code === 'UND_ERR_SOCKET' && / https:\/\//.test(error.message)) {
    // TLS 1.3 servers refuse a missing or unknown client certificate by closing the connection after the handshake.
    return 'the server closed the connection; a server that requires a client certificate does that without a valid one (--cert/--key or --pfx)';
  }
  if (error instanceof NetworkError) return 'is the service URL right and the service reachable?';
  if (error instanceof TimeoutError) return 'raise --timeout, or lower --page-size';
  return undefined;
}

let printedSecrets: KnownSecrets | undefined;

/**
 * The known secrets of the service a command opened (its client's `secrets`: the auth flags' token,
 * password and client secret, and the tokens obtained): every error line printed is scrubbed of them,
 * also for an error built outside the client.
 */
export function scrubPrintedErrors(secrets: KnownSecrets): void {
  printedSecrets = secrets;
}

/** The one line printed for a failure (messages of sluice errors never carry secrets; known secrets are scrubbed again). */
export function describeError(error: unknown): string {
  const line = describeErrorLine(error);
  return printedSecrets?.scrub(line) ?? line;
}

function describeErrorLine(error: unknown): string {
  const size = error instanceof ResponseSizeError ? error : error instanceof PageError && error.cause instanceof ResponseSizeError ? error.cause : undefined;
  if (size !== undefined) {
    const { message, hint } = describeSizeLimit(size);
    return `sluice: ${message}${error instanceof PageError ? ` (GET ${error.url})` : ''}${hint ? ` (${hint})` : ''}`;
  }
  let message = error instanceof Error ? error.message : String(error);
  // A page that failed for good: what failed says it all. The count is of HTTP attempts (core's retries
  // within each page attempt), shown only when there were several.
  if (error instanceof PageError && error.cause instanceof Error) message = error.cause.message;
  // Request errors start with the method and the redacted URL, as the attempt events name it.
  const url = error instanceof PageError ? error.url : error instanceof HttpError ? error.url
    : error instanceof SluiceError ? /^[A-Z]+ (\S+) /.exec(message)?.[1] : undefined;
  const attempts = Math.max(url === undefined ? 0 : attemptsTo(url), error instanceof PageError ? error.attempt : 0);
  if (attempts > 1) message = `${message.split('\n')[0]} (gave up after ${attempts} attempts)`;
  const hint = hintFor(error);
  return `sluice: ${message.split('\n')[0]}${hint ? ` (${hint})` : ''}`;
}

/** The exit code for an error thrown by a command. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof Interrupted) return error.exitCode;
  if (error instanceof UsageError || error instanceof ConfigError) return EXIT.usage;
  if (error instanceof SluiceError) return EXIT.failure;
  return EXIT.failure;
}
