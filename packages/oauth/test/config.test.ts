import { ConfigError, createClient } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { MemoryTokenCache, oauth2, type OAuth2Config } from '@sluice/oauth';

const service: OAuth2Config = {
  clientId: 'svc', clientSecret: 'top-secret-value', tokenURL: 'https://login.example.com/token', grantType: 'client_credentials',
};
const web: OAuth2Config = {
  clientId: 'web', clientSecret: 'web-secret', tokenURL: 'https://login.example.com/token', grantType: 'authorization_code',
  authorizationURL: 'https://login.example.com/authorize', redirectURL: 'https://app.example.com/cb', pkce: true,
};

function configError(run: () => unknown): ConfigError {
  try { run() } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('oauth2() configuration', () => {
  it('refuses authorization_code without redirectURL', () => {
    expect(configError(() => oauth2({ ...web, redirectURL: undefined })).option).toBe('redirectURL');
  });

  it('refuses a public client without PKCE (RFC 9700 2.1.1)', () => {
    expect(configError(() => oauth2({ ...web, clientSecret: undefined, pkce: false })).option).toBe('pkce');
  });

  it('refuses client_credentials for a public client (RFC 6749 4.4)', () => {
    expect(configError(() => oauth2({ ...service, clientSecret: undefined })).option).toBe('clientSecret');
  });

  it('refuses a code without its PKCE verifier', () => {
    expect(configError(() => oauth2(web, { authorizationCode: 'c0de' })).option).toBe('codeVerifier');
  });

  it('refuses grantType refresh_token without a refresh token', () => {
    expect(configError(() => oauth2({ ...service, grantType: 'refresh_token' })).option).toBe('refreshToken');
  });

  it('refuses a shared cache for a user grant without a per-user cacheKey', () => {
    expect(configError(() => oauth2({ ...web, tokenCache: new MemoryTokenCache() })).option).toBe('cacheKey');
    expect(() => oauth2({ ...web, tokenCache: new MemoryTokenCache() }, { cacheKey: 'user-42' })).not.toThrow();
  });

  it('refuses bad URLs, scopes, extra parameters and buffers, naming the option', () => {
    expect(configError(() => oauth2({ ...service, tokenURL: 'ftp://x/token' })).option).toBe('tokenURL');
    expect(configError(() => oauth2({ ...service, tokenURL: 'https://x/token#frag' })).option).toBe('tokenURL');
    expect(configError(() => oauth2({ ...service, scopes: ['a b'] })).option).toBe('scopes');
    expect(configError(() => oauth2({ ...service, extraParams: { grant_type: 'password' } })).option).toBe('extraParams.grant_type');
    expect(configError(() => oauth2({ ...service, refreshBuffer: -1 })).option).toBe('refreshBuffer');
    expect(configError(() => oauth2({ ...service, tokenEndpointAuthMethod: 'none' })).option).toBe('tokenEndpointAuthMethod');
  });

  it('never puts the secret into a configuration error', () => {
    const error = configError(() => oauth2({ ...service, clientSecret: 'top-secret-value', tokenEndpointAuthMethod: 'none' }));
    expect(error.message).not.toContain('top-secret-value');
  });

  it('needs a client with a base URL, since the token only goes to that origin', () => {
    expect(configError(() => createClient({ plugins: [oauth2(service)] })).option).toBe('baseURL');
  });
});

describe('token cache key', () => {
  it('identifies URL, client, grant, scopes and extra parameters, without the secret', () => {
    const key = oauth2({ ...service, scopes: ['a', 'b'], extraParams: { audience: 'x' } }).cacheKey;
    expect(key).not.toContain('top-secret-value');
    expect(oauth2({ ...service, clientSecret: 'other', scopes: ['b', 'a'], extraParams: { audience: 'x' } }).cacheKey).toBe(key);
    for (const other of [
      { ...service, scopes: ['a'], extraParams: { audience: 'x' } },
      { ...service, scopes: ['a', 'b'], extraParams: { audience: 'y' } },
      { ...service, clientId: 'svc2', scopes: ['a', 'b'], extraParams: { audience: 'x' } },
      { ...service, tokenURL: 'https://login.example.com/other', scopes: ['a', 'b'], extraParams: { audience: 'x' } },
    ]) expect(oauth2(other).cacheKey).not.toBe(key);
  });
});
