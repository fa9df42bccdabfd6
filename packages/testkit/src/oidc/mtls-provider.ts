import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';
import type { TestPKI } from '../pki.js';
import { testStorage } from './storage.js';

/** Client registered with {@link startMTLSProvider}: `tls_client_auth` (RFC 8705 2.1) for the PKI's client certificate. */
export const MTLS_CLIENT = { clientId: 'mtls-service', subjectDN: 'CN=sluice-client' } as const;

interface TokenContext {
  host: string;
  method: string;
  path: string;
  status: number;
  req: IncomingMessage;
  oidc?: { body?: Record<string, unknown> };
}

/** A running oidc-provider on https://127.0.0.1 that authenticates clients by their TLS certificate. */
export interface MTLSProvider {
  /** `https://127.0.0.1:<port>` */
  readonly issuer: string;
  readonly tokenURL: string;
  /** Requests `POST /token` answered: the common name of the certificate presented (or undefined), the form, the status. */
  readonly tokenRequests: { clientCertificate: string | undefined; form: Record<string, unknown>; status: number; host: string }[];
  /** Client ids of successful grants, in order. */
  readonly grants: string[];
  close(): Promise<void>;
}

/**
 * Starts oidc-provider behind node:https with the PKI's server certificate, asking every client for a
 * certificate signed by the PKI's CA (without refusing the handshake, so that a request without one gets
 * the provider's own `invalid_client` answer). One client, {@link MTLS_CLIENT}, uses `tls_client_auth`
 * with the client certificate's subject DN; client credentials grant. Discovery names
 * `https://localhost:<port>/token` as the mTLS alias of the token endpoint (RFC 8705 5).
 *
 * @example
 * ```ts
 * const pki = await createTestPKI()
 * const op = await startMTLSProvider(pki)
 * // oauth2({ clientId: MTLS_CLIENT.clientId, tokenURL: op.tokenURL, tokenEndpointAuthMethod: 'tls_client_auth', ... })
 * ```
 */
export async function startMTLSProvider(pki: TestPKI): Promise<MTLSProvider> {
  const tokenRequests: MTLSProvider['tokenRequests'] = [];
  const grants: string[] = [];
  const sockets = new Set<Socket>();
  // eslint-disable-next-line prefer-const -- assigned once the provider exists; the server is created first.
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  const server: Server = createServer(
    { cert: pki.server.cert, key: pki.server.key, ca: pki.ca, requestCert: true, rejectUnauthorized: false },
    (req, res) => handler?.(req, res),
  );
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const peer = (socket: TLSSocket): X509Certificate | undefined => {
    const raw = socket.getPeerCertificate()?.raw;
    return raw === undefined ? undefined : new X509Certificate(raw);
  };
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const provider = new Provider(issuer, {
    adapter: testStorage(),
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: 'sluice-mtls', alg: 'ES256', use: 'sig' }] },
    cookies: { keys: ['sluice-testkit-mtls-cookie-key'] },
    ttl: { ClientCredentials: 300, AccessToken: 300 },
    clientAuthMethods: ['tls_client_auth'],
    // RFC 8705 5: the token endpoint for certificate-authenticated clients, under another name (localhost) to tell them apart.
    discovery: { mtls_endpoint_aliases: { token_endpoint: `${issuer.replace('127.0.0.1', 'localhost')}/token` } },
    clients: [{
      client_id: MTLS_CLIENT.clientId, grant_types: ['client_credentials'], response_types: [], redirect_uris: [],
      token_endpoint_auth_method: 'tls_client_auth', tls_client_auth_subject_dn: MTLS_CLIENT.subjectDN,
      id_token_signed_response_alg: 'ES256',
    }],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      mTLS: {
        enabled: true,
        tlsClientAuth: true,
        getCertificate: (ctx: { socket: TLSSocket }) => peer(ctx.socket),
        // RFC 8705 2.1: the certificate chains to a trusted CA (node:tls checked it against pki.ca) ...
        certificateAuthorized: (ctx: { socket: TLSSocket }) => ctx.socket.authorized,
        // ... and its subject is the one registered for the client.
        certificateSubjectMatches: (ctx: { socket: TLSSocket }, property: string, expected: string) =>
          property === 'tls_client_auth_subject_dn' && peer(ctx.socket)?.subject === expected,
      },
    },
  });
  provider.on('grant.success', (ctx: { oidc: { client?: { clientId: string } } }) => grants.push(ctx.oidc.client?.clientId ?? ''));
  provider.on('server_error', () => undefined);
  // Koa middleware: after the provider answered, record what the token endpoint received.
  provider.use(async (ctx: TokenContext, next: () => Promise<void>) => {
    await next();
    if (ctx.method !== 'POST' || ctx.path !== '/token') return;
    const cn = (ctx.req.socket as TLSSocket).getPeerCertificate()?.subject?.CN;
    tokenRequests.push({ clientCertificate: typeof cn === 'string' ? cn : undefined, form: { ...(ctx.oidc?.body ?? {}) }, status: ctx.status, host: ctx.host });
  });
  handler = provider.callback();

  return {
    issuer,
    tokenURL: `${issuer}/token`,
    tokenRequests,
    grants,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
