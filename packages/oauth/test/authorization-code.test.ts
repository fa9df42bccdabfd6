import { createClient, type Client } from '@sluice/core';
import { OIDC_CLIENTS } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import {
  buildAuthorizationURL, forceRefresh, MemoryTokenCache, oauth2, TokenRequestError, TokenUnavailableError, verifyCallback,
  type OAuth2Config, type OAuth2Options,
} from '@sluice/oauth';
import { busyUntil } from './busy.js';
import { eventLog } from './events.js';
import { useProvider } from './provider-fixture.js';

// The authorization code flow end to end: URL, programmatic login and consent, callback, exchange, refresh.
const fx = useProvider();

const redirectURL = 'http://127.0.0.1:8765/callback';

function webConfig(extra: Partial<OAuth2Config> = {}): OAuth2Config {
  return {
    clientId: OIDC_CLIENTS.webApp.clientId, clientSecret: OIDC_CLIENTS.webApp.clientSecret,
    tokenURL: fx.op.tokenURL, authorizationURL: fx.op.authorizationURL, redirectURL,
    grantType: 'authorization_code', scopes: ['openid', 'api:read'], pkce: true, ...extra,
  };
}

const publicConfig = (extra: Partial<OAuth2Config> = {}): OAuth2Config =>
  webConfig({ clientId: OIDC_CLIENTS.publicApp.clientId, clientSecret: undefined, ...extra });

/** Runs the browser part: authorization URL, login as `user`, consent, callback check. */
async function authorize(config: OAuth2Config, user = 'alice'): Promise<{ code: string; codeVerifier: string | undefined }> {
  const { url, state, codeVerifier } = await buildAuthorizationURL(config);
  const callback = await fx.op.login(url, user);
  expect(callback.startsWith(redirectURL)).toBe(true);
  return { code: verifyCallback(callback, state), codeVerifier };
}

function apiClient(config: OAuth2Config, options: OAuth2Options): Client {
  const client = createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [oauth2(config, options)] });
  fx.track(client);
  return client;
}

describe('authorization code with PKCE against oidc-provider', () => {
  it('exchanges the code of a confidential client and calls the API as the user', async () => {
    const log = eventLog();
    const { code, codeVerifier } = await authorize(webConfig(), 'alice');
    const client = apiClient(webConfig(), { authorizationCode: code, codeVerifier, onTokenEvent: log.onTokenEvent });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'alice', client_id: 'web-app', scope: 'api:read' });
    expect(fx.op.grants.at(-1)).toEqual({ grantType: 'authorization_code', clientId: 'web-app' });
    expect(log.types()).toEqual(['TokenAcquired']);
  });

  it('works for a public client (no secret, PKCE)', async () => {
    const { code, codeVerifier } = await authorize(publicConfig(), 'bob');
    const client = apiClient(publicConfig(), { authorizationCode: code, codeVerifier });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'bob', client_id: 'public-app' });
  });

  it('fails the exchange with invalid_grant when the verifier does not match (RFC 7636 4.6)', async () => {
    const { code } = await authorize(webConfig());
    const client = apiClient(webConfig(), { authorizationCode: code, codeVerifier: 'x'.repeat(43) });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).error).toBe('invalid_grant');
    expect((error as Error).message).not.toContain(code);
  });

  it('uses the code once: a second exchange is refused and never shows the code', async () => {
    const { code, codeVerifier } = await authorize(webConfig());
    await apiClient(webConfig(), { authorizationCode: code, codeVerifier }).get('me');
    const error = await apiClient(webConfig(), { authorizationCode: code, codeVerifier }).get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as TokenRequestError).error).toBe('invalid_grant');
    expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain(code);
  });

  it('refreshes with the refresh_token grant in the background and stores the rotated refresh token', async () => {
    fx.op.settings.accessTokenTTL = 3;
    const log = eventLog();
    const tokenCache = new MemoryTokenCache();
    const { code, codeVerifier } = await authorize(webConfig());
    const plugin = oauth2(webConfig({ refreshBuffer: 2000, tokenCache }), {
      authorizationCode: code, codeVerifier, cacheKey: 'user:alice', onTokenEvent: log.onTokenEvent,
    });
    const client = createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [plugin] });
    fx.track(client);
    await client.get('me');
    const first = await tokenCache.get('user:alice');
    expect(first?.refreshToken).toBeDefined();
    await busyUntil(client, log.waitFor('TokenRefreshed'));
    const second = await tokenCache.get('user:alice');
    expect(fx.op.grants.at(-1)).toEqual({ grantType: 'refresh_token', clientId: 'web-app' });
    expect(second!.accessToken).not.toBe(first!.accessToken);
    expect(second!.refreshToken).toBeDefined();
    expect(second!.refreshToken).not.toBe(first!.refreshToken);
    expect(await client.getJSON('me')).toMatchObject({ sub: 'alice' });
    expect(fx.api.requests.at(-1)!.token).toBe(second!.accessToken);
  });

  it('renews with the refresh token after a 401 and on forceRefresh, never reusing the code', async () => {
    const { code, codeVerifier } = await authorize(publicConfig(), 'carol');
    const client = apiClient(publicConfig(), { authorizationCode: code, codeVerifier });
    await client.get('me');
    fx.api.reject401(1);
    expect(await client.getJSON('me')).toMatchObject({ sub: 'carol' });
    await forceRefresh(client);
    expect(await client.getJSON('me')).toMatchObject({ sub: 'carol' });
    expect(fx.op.grants.filter((g) => g.clientId === 'public-app').slice(-3).map((g) => g.grantType))
      .toEqual(['authorization_code', 'refresh_token', 'refresh_token']);
  });

  it('starts from a refresh token alone (grantType refresh_token)', async () => {
    const { code, codeVerifier } = await authorize(publicConfig(), 'dave');
    const cache = new MemoryTokenCache();
    const first = createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [oauth2(publicConfig({ tokenCache: cache }), { authorizationCode: code, codeVerifier, cacheKey: 'dave' })] });
    fx.track(first);
    await first.get('me');
    const refreshToken = (await cache.get('dave'))!.refreshToken!;
    await first.close();
    const later = apiClient(publicConfig({ grantType: 'refresh_token' }), { refreshToken });
    expect(await later.getJSON('me')).toMatchObject({ sub: 'dave' });
    expect(fx.op.grants.at(-1)!.grantType).toBe('refresh_token');
  });

  it('reports TokenUnavailableError once the code is spent and the refresh token is revoked', async () => {
    const { code, codeVerifier } = await authorize(publicConfig(), 'erin');
    const log = eventLog();
    const client = apiClient(publicConfig(), { authorizationCode: code, codeVerifier, onTokenEvent: log.onTokenEvent });
    await client.get('me');
    fx.op.failTokenRequests('invalid_grant', 1);
    const refused = await forceRefresh(client).catch((e: unknown) => e);
    expect(refused).toMatchObject({ error: 'invalid_grant' });
    // The access token is still valid and stays in use until the API refuses it.
    expect(await client.getJSON('me')).toMatchObject({ sub: 'erin' });
    fx.api.reject401(1);
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenUnavailableError);
    expect(log.types()).toEqual(['TokenAcquired', 'TokenRefreshFailed']);
  });
});
