import { ConfigError, type KnownSecrets, type Transport } from '@sluice/core';
import { randomUUID, type KeyObject } from 'node:crypto';
import type { ResolvedConfig } from './config.js';

/** RFC 7523 2.2: the client assertion type of a JWT used for client authentication. */
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** Lifetime of a client assertion: short, it is used once (RFC 7523 3, `exp`). */
const ASSERTION_LIFETIME_S = 60;

/** RFC 6749 2.3.1: client id and secret are form-urlencoded before they are joined for Basic auth. */
export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * Adds the client authentication of `config.authMethod` to a token request: a Basic header, form
 * parameters, or a signed client assertion (RFC 7523). Every secret it sends is added to `secrets`.
 */
export async function authenticateClient(
  config: ResolvedConfig,
  tokenURL: string,
  headers: Record<string, string>,
  form: URLSearchParams,
  secrets: KnownSecrets,
): Promise<void> {
  const { clientId, clientSecret } = config;
  switch (config.authMethod) {
    case 'client_secret_basic': {
      // RFC 6749 2.3.1: HTTP Basic with the form-urlencoded id and secret.
      const credentials = Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret!)}`, 'utf8').toString('base64');
      headers['authorization'] = `Basic ${credentials}`;
      secrets.add(clientSecret, credentials);
      return;
    }
    case 'client_secret_post':
      // RFC 6749 2.3.1: the secret in the body, only when the client chose client_secret_post.
      form.set('client_id', clientId);
      form.set('client_secret', clientSecret!);
      secrets.add(clientSecret);
      return;
    case 'client_secret_jwt':
    case 'private_key_jwt': {
      const assertion = await signAssertion(config, tokenURL);
      // RFC 7523 2.2: the assertion and its type in the body; client_id is optional but helps servers.
      form.set('client_id', clientId);
      form.set('client_assertion_type', JWT_BEARER);
      form.set('client_assertion', assertion);
      secrets.add(assertion, clientSecret);
      return;
    }
    case 'none':
      // RFC 6749 3.2.1: a public client identifies itself with client_id.
      form.set('client_id', clientId);
      return;
    case 'tls_client_auth':
    case 'self_signed_tls_client_auth':
      // RFC 8705 2: client_id in the body; the certificate the transport presents is the credential.
      form.set('client_id', clientId);
      return;
  }
}

/**
 * RFC 7523 3: a JWT with `iss` and `sub` the client id, `aud` the token endpoint, a fresh `jti` and a
 * short `exp`; HMAC with the secret for `client_secret_jwt`, the private key for `private_key_jwt`
 * (OpenID Connect Core 9). jose is loaded on first use, so clients that never sign do not load it.
 */
async function signAssertion(config: ResolvedConfig, tokenURL: string): Promise<string> {
  const { SignJWT } = await import('jose');
  const key: KeyObject | Uint8Array = config.authMethod === 'private_key_jwt'
    ? config.privateKey!.key
    : new TextEncoder().encode(config.clientSecret!);
  const alg = config.authMethod === 'private_key_jwt' ? config.privateKey!.alg : config.signingAlgorithm ?? 'HS256';
  const header: { alg: string; typ: string; kid?: string } = { alg, typ: 'JWT' };
  if (config.authMethod === 'private_key_jwt' && config.privateKey!.kid !== undefined) header.kid = config.privateKey!.kid;
  return new SignJWT({})
    .setProtectedHeader(header)
    .setIssuer(config.clientId)
    .setSubject(config.clientId)
    .setAudience(tokenURL)
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime(`${ASSERTION_LIFETIME_S}s`)
    .sign(key);
}

/**
 * RFC 8705 2: `tls_client_auth` and `self_signed_tls_client_auth` authenticate with the TLS client
 * certificate, so the token transport must present one. A transport that says it has none is a
 * ConfigError now rather than an `invalid_client` at the first token request.
 */
export function checkCertificateAuth(authMethod: ResolvedConfig['authMethod'], transport: Transport | undefined): void {
  if (authMethod !== 'tls_client_auth' && authMethod !== 'self_signed_tls_client_auth') return;
  if (transport?.clientCertificate !== false) return;
  throw new ConfigError(
    'tokenEndpointAuthMethod',
    `${authMethod} needs a TLS client certificate: set tls.cert + tls.key (or tls.pfx) on the client, or give the oauth2 plugin a tokenTransport with one`,
  );
}
