import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { sendJSON, startServer, type TestServer } from '../http-server.js';
import { API_RESOURCE } from './provider.js';

/** What the protected API saw for one request. */
export interface APIRequestRecord {
  path: string;
  /** The bearer token presented, or undefined. */
  token: string | undefined;
  /** Status answered. */
  status: number;
  /** Verified claims when the token was valid. */
  claims: JWTPayload | undefined;
}

/** A resource server that accepts only valid JWT access tokens of a given issuer. */
export interface ProtectedAPI {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** Every request, in arrival order. */
  readonly requests: APIRequestRecord[];
  /** Answers the next `count` requests with 401 `invalid_token`, valid token or not. */
  reject401(count?: number): void;
  readonly server: TestServer;
  close(): Promise<void>;
}

/**
 * Starts an API on 127.0.0.1 that verifies `Authorization: Bearer` JWT access tokens with jose against
 * the provider's `/jwks` (issuer and audience {@link API_RESOURCE} checked) and answers 401 with
 * `WWW-Authenticate: Bearer error="invalid_token"` (RFC 6750 3.1) otherwise, or when told to. A valid
 * request gets `{ path, sub, client_id, scope }` back.
 *
 * @example
 * ```ts
 * const api = await startProtectedAPI(op.issuer)
 * api.reject401(1) // the next request is refused once
 * ```
 */
export async function startProtectedAPI(issuer: string, audience: string = API_RESOURCE): Promise<ProtectedAPI> {
  const jwks = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const requests: APIRequestRecord[] = [];
  let rejections = 0;
  const server = await startServer(async (req, res) => {
    const path = req.url ?? '/';
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    const refuse = (description: string): void => {
      requests.push({ path, token, status: 401, claims: undefined });
      sendJSON(res, 401, { error: 'invalid_token', error_description: description }, {
        'www-authenticate': `Bearer error="invalid_token", error_description="${description}"`,
      });
    };
    if (rejections > 0) {
      rejections--;
      refuse('rejected for the test');
      return;
    }
    if (token === undefined) {
      refuse('no bearer token');
      return;
    }
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, jwks, { issuer, audience }));
    } catch {
      refuse('token did not verify');
      return;
    }
    requests.push({ path, token, status: 200, claims });
    sendJSON(res, 200, { path, sub: claims.sub, client_id: claims['client_id'], scope: claims['scope'] });
  });
  return {
    origin: server.origin,
    requests,
    server,
    reject401(count = 1) {
      rejections = count;
    },
    close: () => server.close(),
  };
}
