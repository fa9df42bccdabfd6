const encoder = new TextEncoder();

/** Base64url without padding (RFC 7636 appendix A). */
export function base64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** `bytes` cryptographically random bytes, base64url-encoded. */
export function randomToken(bytes: number): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * A fresh PKCE code verifier: 32 random bytes as 43 base64url characters (RFC 7636 4.1 asks for
 * 43-128 unreserved characters with enough entropy).
 *
 * @example
 * ```ts
 * const verifier = createCodeVerifier() // 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk'-like
 * ```
 */
export function createCodeVerifier(): string {
  // RFC 7636 7.1: 32 octets of randomness give a 256-bit verifier.
  return randomToken(32);
}

/**
 * The S256 code challenge of a verifier: `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 4.2).
 *
 * @example
 * ```ts
 * await codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk') // 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'
 * ```
 */
export async function codeChallengeS256(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(verifier));
  return base64url(new Uint8Array(digest));
}
