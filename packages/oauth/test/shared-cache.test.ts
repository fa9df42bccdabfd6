import { createClient, type Client } from '@sluice/core';
import { OIDC_CLIENTS } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { forceRefresh, MemoryTokenCache, oauth2, TokenRequestError, type OAuth2Options, type TokenCache } from '@sluice/oauth';
import { useProvider } from './provider-fixture.js';

// Two clients sharing one cache stand for two instances sharing a store (SPEC 2.2).
const fx = useProvider();

function instance(tokenCache: TokenCache, options: OAuth2Options = {}): Client {
  return fx.track(createClient({
    baseURL: `${fx.api.origin}/v1`,
    plugins: [oauth2({
      clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret, tokenURL: fx.op.tokenURL,
      grantType: 'client_credentials', scopes: ['api:read'], tokenCache,
    }, options)],
  }));
}

/** A MemoryTokenCache that records the calls the plugin makes, release included. */
function recordingCache(): { cache: TokenCache; calls: string[] } {
  const inner = new MemoryTokenCache();
  const calls: string[] = [];
  const cache: TokenCache = {
    get: (key, stale) => { calls.push('get'); return inner.get(key, stale); },
    set: (key, token, expiresAt) => { calls.push('set'); return inner.set(key, token, expiresAt); },
    delete: (key) => { calls.push('delete'); return inner.delete(key); },
    release: async (key) => { calls.push(`release ${key}`); },
  };
  return { cache, calls };
}

const lastToken = (): string => fx.api.requests.at(-1)!.token!;

describe('a token cache shared by several instances', () => {
  it('after a 401, adopts the newer token another instance stored instead of requesting one', async () => {
    const tokenCache = new MemoryTokenCache();
    const a = instance(tokenCache);
    const b = instance(tokenCache);
    await a.get('me');
    await b.get('me');
    const old = lastToken();
    await forceRefresh(a);
    await a.get('me');
    const replacement = lastToken();
    expect(replacement).not.toBe(old);
    const before = fx.op.tokenRequests();
    fx.api.reject401(1);
    await b.get('orders');
    // b dropped the refused token, asked the cache for another one and resent with a's replacement.
    expect(lastToken()).toBe(replacement);
    expect(fx.op.tokenRequests()).toBe(before);
  });

  it('after a 401, never takes the refused token back from the cache', async () => {
    const seen: (string | undefined)[] = [];
    const tokenCache = new MemoryTokenCache();
    const recording: TokenCache = {
      get: (key, stale) => {
        seen.push(stale);
        return tokenCache.get(key, stale);
      },
      set: (key, token, expiresAt) => tokenCache.set(key, token, expiresAt),
      delete: (key) => tokenCache.delete(key),
    };
    const client = instance(recording);
    await client.get('me');
    const refused = lastToken();
    const before = fx.op.tokenRequests();
    fx.api.reject401(1);
    await client.get('orders');
    expect(seen).toEqual([undefined, refused]);
    expect(lastToken()).not.toBe(refused);
    expect(fx.op.tokenRequests()).toBe(before + 1);
  });

  it('MemoryTokenCache.get treats the stale token as absent and returns any other', async () => {
    const cache = new MemoryTokenCache();
    const token = { accessToken: 'abc', tokenType: 'Bearer', expiresAt: Date.now() + 60_000, expiresIn: 60_000 };
    await cache.set('k', token, token.expiresAt);
    expect(await cache.get('k', 'abc')).toBeUndefined();
    expect(await cache.get('k', 'older')).toEqual(token);
    expect(await cache.get('k')).toEqual(token);
  });

  it('calls the optional release after a failed token request (first acquisition and forced refresh), never after a success', async () => {
    const { cache, calls } = recordingCache();
    const client = instance(cache, { cacheKey: 'svc', tokenRetry: false });
    fx.op.failTokenRequests('unavailable', 1);
    expect(await client.get('me').catch((e: unknown) => e)).toBeInstanceOf(TokenRequestError);
    expect(calls).toEqual(['get', 'release svc']);
    await client.get('me');
    expect(calls.slice(2)).toEqual(['get', 'set']);
    fx.op.failTokenRequests('unavailable', 1);
    await expect(forceRefresh(client)).rejects.toBeInstanceOf(TokenRequestError);
    expect(calls.slice(4)).toEqual(['delete', 'release svc']);
    await forceRefresh(client);
    expect(calls.slice(6)).toEqual(['delete', 'set']);
  });

  it('refuses a tokenCache whose release is not a function', () => {
    const cache = { ...new MemoryTokenCache(), get: async () => undefined, set: async () => undefined, delete: async () => undefined, release: 'yes' };
    expect(() => instance(cache as unknown as TokenCache)).toThrow(/release, when present, must be a function/);
  });
});
