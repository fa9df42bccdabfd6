import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { ConfigError, createClient, type Client } from '@sluice/core';
import { sendJSON, startOIDCProvider, startProtectedAPI, startServer, type OIDCProvider, type ProtectedAPI } from '@sluice/testkit';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { oauth2, TokenRequestError, type OAuth2Config } from '@sluice/oauth';

// RFC 7523 client authentication (private_key_jwt, client_secret_jwt) against oidc-provider, and on the wire.
const track = closeAfterEach();
const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const rsaKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const JWT_SECRET = 'client-secret-jwt-0123456789abcdef0123456789abcdef';
const publicJWK = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig' });
const service = { grant_types: ['client_credentials'], response_types: [], redirect_uris: [] };

let op: OIDCProvider;
let api: ProtectedAPI;
beforeAll(async () => {
  op = await startOIDCProvider({
    clients: [
      { ...service, client_id: 'key-jwt', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJWK(ecKey.publicKey, 'ec-1'), publicJWK(rsaKey.publicKey, 'rsa-1')] } },
      { ...service, client_id: 'secret-jwt', client_secret: JWT_SECRET, token_endpoint_auth_method: 'client_secret_jwt' },
    ],
  });
  api = await startProtectedAPI(op.issuer);
});
afterAll(async () => {
  await api.close();
  await op.close();
});

function apiClient(config: Partial<OAuth2Config>): Client {
  return track(createClient({
    baseURL: `${api.origin}/v1`,
    plugins: [oauth2({ clientId: 'key-jwt', tokenURL: op.tokenURL, grantType: 'client_credentials', scopes: ['api:read'], ...config } as OAuth2Config)],
  }));
}

const pem = (key: KeyObject): string => key.export({ format: 'pem', type: 'pkcs8' }).toString();

describe('private_key_jwt and client_secret_jwt against oidc-provider', () => {
  it('authenticates with an EC key given as PEM (ES256 chosen from the curve)', async () => {
    const client = apiClient({ privateKey: pem(ecKey.privateKey) });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'key-jwt' });
    expect(op.grants.at(-1)).toEqual({ grantType: 'client_credentials', clientId: 'key-jwt' });
  });

  it('authenticates with an RSA KeyObject and a kid, and with a private JWK', async () => {
    const withKid = apiClient({ privateKey: rsaKey.privateKey, privateKeyId: 'rsa-1', tokenEndpointAuthMethod: 'private_key_jwt' });
    expect(await withKid.getJSON('me')).toMatchObject({ sub: 'key-jwt' });
    const fromJWK = apiClient({ privateKey: ecKey.privateKey.export({ format: 'jwk' }) });
    expect(await fromJWK.getJSON('me')).toMatchObject({ sub: 'key-jwt' });
  });

  it('authenticates with client_secret_jwt (HS256 over the secret)', async () => {
    const client = apiClient({ clientId: 'secret-jwt', clientSecret: JWT_SECRET, tokenEndpointAuthMethod: 'client_secret_jwt' });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'secret-jwt' });
  });

  it('is refused with invalid_client for a key the server does not know, and shows no assertion', async () => {
    const client = apiClient({ privateKey: pem(otherKey.privateKey) });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ error: 'invalid_client', status: 401 });
    expect(JSON.stringify(error) + (error as Error).message).not.toMatch(/eyJ[\w-]+\.eyJ/);
  });

  it('selects client_secret_post or client_secret_basic as configured (the wire shape is in token-request.test.ts)', async () => {
    const post = apiClient({ clientId: 'service-post', clientSecret: 'service-post-secret-77ab', tokenEndpointAuthMethod: 'client_secret_post' });
    expect(await post.getJSON('me')).toMatchObject({ sub: 'service-post' });
    const basic = apiClient({ clientId: 'service', clientSecret: 'service-secret-1f9c', tokenEndpointAuthMethod: 'client_secret_basic' });
    expect(await basic.getJSON('me')).toMatchObject({ sub: 'service' });
  });
});

describe('the client assertion on the wire (RFC 7523 3)', () => {
  it('carries iss = sub = client id, aud = token endpoint, a fresh jti and a short exp', async () => {
    const server = track(await startServer((req, res) => {
      if (req.url === '/token') sendJSON(res, 200, { access_token: 'tok', token_type: 'Bearer', expires_in: 0 });
      else sendJSON(res, 200, {});
    }));
    const client = track(createClient({
      baseURL: `${server.origin}/api`,
      plugins: [oauth2({ clientId: 'svc', tokenURL: `${server.origin}/token`, grantType: 'client_credentials', privateKey: pem(ecKey.privateKey), privateKeyId: 'ec-1' }, { minTokenInterval: 0 })],
    }));
    await client.get('a');
    await client.get('b');
    const forms = server.requests.filter((r) => r.url === '/token').map((r) => new URLSearchParams(r.body));
    expect(forms).toHaveLength(2);
    for (const form of forms) {
      expect(form.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
      expect(form.get('client_id')).toBe('svc');
      expect(form.has('client_secret')).toBe(false);
    }
    const [a, b] = forms.map((f) => f.get('client_assertion')!);
    expect(decodeProtectedHeader(a!)).toMatchObject({ alg: 'ES256', kid: 'ec-1', typ: 'JWT' });
    const claims = decodeJwt(a!);
    expect(claims).toMatchObject({ iss: 'svc', sub: 'svc', aud: `${server.origin}/token` });
    expect(claims.exp! - claims.iat!).toBe(60);
    expect(decodeJwt(b!).jti).not.toBe(claims.jti);
    expect(server.requests.every((r) => r.headers.authorization === undefined || r.url !== '/token')).toBe(true);
  });
});

describe('client authentication configuration', () => {
  const base = { clientId: 'svc', tokenURL: 'https://idp.test/token', grantType: 'client_credentials' } as const;

  it('refuses an unreadable key without quoting it', () => {
    const garbage = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LWtleS1tYXRlcmlhbA==\n-----END PRIVATE KEY-----';
    expect(() => oauth2({ ...base, privateKey: garbage })).toThrow(ConfigError);
    try {
      oauth2({ ...base, privateKey: garbage });
    } catch (error) {
      expect((error as Error).message).toMatch(/^privateKey could not be read/);
      expect((error as Error).message).not.toContain('c2VjcmV0');
    }
  });

  it('refuses a public key, a missing key, and algorithms that do not fit the method', () => {
    expect(() => oauth2({ ...base, privateKey: ecKey.publicKey })).toThrow(/privateKey must be a private key, got a public key/);
    expect(() => oauth2({ ...base, tokenEndpointAuthMethod: 'private_key_jwt' })).toThrow(/privateKey is required with tokenEndpointAuthMethod private_key_jwt/);
    expect(() => oauth2({ ...base, privateKey: pem(ecKey.privateKey), signingAlgorithm: 'HS256' })).toThrow(/signingAlgorithm HS256 is for client_secret_jwt/);
    expect(() => oauth2({ ...base, clientSecret: 'long-enough-secret', tokenEndpointAuthMethod: 'client_secret_jwt', signingAlgorithm: 'RS256' })).toThrow(/signingAlgorithm must be one of HS256/);
    expect(() => oauth2({ ...base, clientSecret: 'x', privateKey: pem(ecKey.privateKey), tokenEndpointAuthMethod: 'private_key_jwt' })).toThrow(/private_key_jwt does not use clientSecret/);
  });
});
