import type { IncomingMessage } from 'node:http';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { API_RESOURCE } from './provider.js';

/**
 * An `authorize` check for the OData test server: the request must carry `Authorization: Bearer` with a
 * JWT access token of `issuer` for `audience`, verified with jose against the issuer's `/jwks`.
 *
 * @example
 * ```ts
 * const op = await startOIDCProvider()
 * const srv = await startODataServer({ products: 1000, authorize: bearerAuthorizer(op.issuer) })
 * ```
 */
export function bearerAuthorizer(issuer: string, audience: string = API_RESOURCE): (req: IncomingMessage) => Promise<boolean> {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  return async (req) => {
    const header = req.headers.authorization;
    if (header === undefined || !header.startsWith('Bearer ')) return false;
    try {
      await jwtVerify(header.slice(7), jwks, { issuer, audience });
      return true;
    } catch {
      return false;
    }
  };
}
