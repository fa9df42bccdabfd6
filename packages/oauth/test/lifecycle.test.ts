import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { AbortError, createClient, HttpError, type Client } from '@sluice/core';
import { OIDC_CLIENTS } from '@sluice/testkit';
import { describe, expect, it, vi } from 'vitest';
import {
  forceRefresh, MemoryTokenCache, oauth2, TokenRequestError, type OAuth2Config, type OAuth2Options, type Token,
} from '@sluice/oauth';
import { busyUntil } from './busy.js';
import { eventLog } from './events.js';
import { useProvider } from './provider-fixture.js';

// SPEC 3.1 transitions, driven by short token lifetimes at a real provider and awaited through events.
const fx = useProvider();

const run = promisify(execFile);
const secret = OIDC_CLIENTS.service.clientSecret;

function apiClient(extra: Partial<OAuth2Config> = {}, options?: OAuth2Options): Client {
  const config: OAuth2Config = {
    clientId: OIDC_CLIENTS.service.clientId, clientSecret: secret, tokenURL: fx.op.tokenURL,
    grantType: 'client_credentials', scopes: ['api:read'], ...extra,
  };
  const client = createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [oauth2(config, options)] });
  fx.track(client);
  return client;
}

const lastToken = (): string => fx.api.requests.at(-1)!.token!;

/** A real cache that also records what the plugin asked of it. */
class RecordingCache extends MemoryTokenCache {
  readonly deleted: string[] = [];
  readonly stored: Token[] = [];
  override async set(key: string, token: Token, expiresAt: number): Promise<void> {
    this.stored.push(token);
    await super.set(key, token, expiresAt);
  }
  override async delete(key: string): Promise<void> {
    this.deleted.push(key);
    await super.delete(key);
  }
}

describe('token lifecycle (SPEC 3.1)', () => {
  it('refreshes a busy client\'s token in the background before expiry and emits TokenRefreshed', async () => {
    fx.op.settings.accessTokenTTL = 3;
    const log = eventLog();
    const client = apiClient({ refreshBuffer: 2000 }, { onTokenEvent: log.onTokenEvent });
    await client.get('me');
    const first = lastToken();
    const { value: refreshed } = await busyUntil(client, log.waitFor('TokenRefreshed'));
    expect(refreshed.expiresIn).toBe(3000);
    expect(log.count('TokenExpired')).toBe(0);
    await client.get('me');
    expect(lastToken()).not.toBe(first);
    expect(fx.op.grants.at(-1)!.grantType).toBe('client_credentials');
  });

  it('serves requests with the current token while a background refresh is in flight', async () => {
    fx.op.settings.accessTokenTTL = 3;
    const log = eventLog();
    const client = apiClient({ refreshBuffer: 2000 }, { onTokenEvent: log.onTokenEvent });
    await client.get('me');
    const token = lastToken();
    fx.op.failTokenRequests('hold');
    await busyUntil(client, fx.op.nextTokenRequest());
    const during = await Promise.all(Array.from({ length: 5 }, () => client.getJSON('me')));
    expect(during).toHaveLength(5);
    expect(fx.api.requests.slice(-5).every((r) => r.token === token && r.status === 200)).toBe(true);
    expect(log.count('TokenRefreshed')).toBe(0);
    fx.op.restoreTokenRequests();
    await log.waitFor('TokenRefreshed');
    await client.get('me');
    expect(lastToken()).not.toBe(token);
  });

  it('keeps the old token after a failed refresh, backs off, then expires and fails the next request', async () => {
    fx.op.settings.accessTokenTTL = 3;
    const log = eventLog();
    const client = apiClient({ refreshBuffer: 2000 }, {
      onTokenEvent: log.onTokenEvent, refreshRetry: { waitBase: 100, maxWait: 400 }, minTokenInterval: 0, tokenRetry: { waitBase: 10, maxWait: 20 },
    });
    await client.get('me');
    const token = lastToken();
    fx.op.failTokenRequests('unavailable');
    const { value: firstFailure } = await busyUntil(client, log.waitFor('TokenRefreshFailed'));
    expect(firstFailure.error).toBeInstanceOf(TokenRequestError);
    expect(firstFailure.error).toMatchObject({ status: 503, error: 'temporarily_unavailable' });
    expect(lastToken()).toBe(token);
    const { requests } = await busyUntil(client, log.waitFor('TokenRefreshFailed', 2));
    // The backoff holds the second attempt back while requests go on with the old token.
    expect(requests).toBeGreaterThan(1);
    expect(fx.api.requests.at(-1)!.token).toBe(token);
    const failedRequests = fx.op.tokenRequests();
    // Idle now: nothing more is attempted until the token expires.
    await log.waitFor('TokenExpired');
    expect(fx.op.tokenRequests() - failedRequests).toBeLessThanOrEqual(1);
    expect(log.types()[0]).toBe('TokenAcquired');
    expect(new Set(log.types().slice(1))).toEqual(new Set(['TokenRefreshFailed', 'TokenExpired']));
    expect(log.count('TokenExpired')).toBe(1);
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    fx.op.restoreTokenRequests();
    await client.get('me');
    expect(lastToken()).not.toBe(token);
    expect(log.types().at(-1)).toBe('TokenAcquired');
    const shown = JSON.stringify(log.events) + log.events.map((e) => `${e.error?.message} ${e.error?.stack}`).join() + (error as Error).message;
    expect(shown).not.toContain(secret);
    expect(shown).not.toContain(token);
  });

  it('keeps serving concurrent requests with the valid token when a proactive refresh fails', async () => {
    fx.op.settings.accessTokenTTL = 3;
    const log = eventLog();
    const client = apiClient({ refreshBuffer: 2000 }, { onTokenEvent: log.onTokenEvent, refreshRetry: { waitBase: 5000, maxWait: 5000 } });
    await client.get('me');
    const token = lastToken();
    const seen = fx.api.requests.length;
    fx.op.failTokenRequests('unavailable');
    await busyUntil(client, log.waitFor('TokenRefreshFailed'), 'me', 10);
    await Promise.all(Array.from({ length: 10 }, () => client.get('me')));
    const served = fx.api.requests.slice(seen);
    expect(served.length).toBeGreaterThanOrEqual(20);
    expect(served.every((r) => r.status === 200 && r.token === token)).toBe(true);
    expect(log.types()).toEqual(['TokenAcquired', 'TokenRefreshFailed']);
  });

  it('renews the token after a 401 and resends the request once', async () => {
    const log = eventLog();
    const client = apiClient({}, { onTokenEvent: log.onTokenEvent });
    await client.get('me');
    const token = lastToken();
    const before = fx.op.tokenRequests();
    const seen = fx.api.requests.length;
    fx.api.reject401(1);
    expect(await client.getJSON('orders')).toMatchObject({ path: '/v1/orders' });
    expect(fx.op.tokenRequests()).toBe(before + 1);
    const sent = fx.api.requests.slice(seen);
    expect(sent.map((r) => r.status)).toEqual([401, 200]);
    expect(sent[0]!.token).toBe(token);
    expect(sent[1]!.token).not.toBe(token);
    expect(log.count('TokenAcquired')).toBe(2);
  });

  it('lets a second 401 reach the caller as HttpError, after exactly one renewal', async () => {
    const client = apiClient();
    await client.get('me');
    const before = fx.op.tokenRequests();
    const seen = fx.api.requests.length;
    fx.api.reject401(2);
    const error = await client.get('orders').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(401);
    expect(fx.api.requests.length - seen).toBe(2);
    expect(fx.op.tokenRequests()).toBe(before + 1);
    expect((error as Error).message).not.toContain(lastToken());
  });

  it('lets concurrent 401s for the same token share one renewal', async () => {
    const client = apiClient();
    await client.get('me');
    const before = fx.op.tokenRequests();
    fx.api.reject401(5);
    await Promise.all(Array.from({ length: 5 }, () => client.get('me')));
    expect(fx.op.tokenRequests()).toBe(before + 1);
  });

  it('lets one caller abort while waiting for the token without cancelling the acquisition for others', async () => {
    const client = apiClient();
    fx.op.failTokenRequests('hold');
    const before = fx.op.tokenRequests();
    const arrived = fx.op.nextTokenRequest();
    const controller = new AbortController();
    const aborted = client.get('me', { signal: controller.signal }).catch((e: unknown) => e);
    const patient = client.getJSON('me');
    await arrived;
    controller.abort();
    expect(await aborted).toBeInstanceOf(AbortError);
    fx.op.restoreTokenRequests();
    expect(await patient).toMatchObject({ sub: 'service' });
    expect(fx.op.tokenRequests()).toBe(before + 1);
  });

  it('forceRefresh deletes the cached token through the cache and fetches a new one', async () => {
    const cache = new RecordingCache();
    const log = eventLog();
    const plugin = oauth2({
      clientId: OIDC_CLIENTS.service.clientId, clientSecret: secret, tokenURL: fx.op.tokenURL, grantType: 'client_credentials', tokenCache: cache,
    }, { onTokenEvent: log.onTokenEvent });
    const client = createClient({ baseURL: fx.api.origin, plugins: [plugin] });
    fx.track(client);
    await client.get('me');
    const token = lastToken();
    await forceRefresh(client);
    expect(cache.deleted).toEqual([plugin.cacheKey]);
    expect(cache.stored.map((t) => t.accessToken)).toHaveLength(2);
    expect((await cache.get(plugin.cacheKey))?.accessToken).toBe(cache.stored[1]!.accessToken);
    await client.get('me');
    expect(lastToken()).not.toBe(token);
    expect(lastToken()).toBe(cache.stored[1]!.accessToken);
    expect(log.types()).toEqual(['TokenAcquired', 'TokenRefreshed']);
  });

  it('forceRefresh rejects and emits TokenRefreshFailed when the token endpoint fails, keeping the valid token', async () => {
    const log = eventLog();
    const client = apiClient({}, { onTokenEvent: log.onTokenEvent });
    await client.get('me');
    const token = lastToken();
    const before = fx.op.tokenRequests();
    fx.op.failTokenRequests('drop', 1);
    await expect(forceRefresh(client)).rejects.toBeInstanceOf(TokenRequestError);
    expect(log.types()).toEqual(['TokenAcquired', 'TokenRefreshFailed']);
    await client.get('me');
    // SPEC 3.1 / 7: a failed refresh keeps the existing token until it expires.
    expect(lastToken()).toBe(token);
    expect(fx.op.tokenRequests()).toBe(before + 1);
    expect(log.types()).toEqual(['TokenAcquired', 'TokenRefreshFailed']);
  });

  it('shares a token through a common cache between two clients', async () => {
    const tokenCache = new MemoryTokenCache();
    const before = fx.op.tokenRequests();
    const a = apiClient({ tokenCache });
    const b = apiClient({ tokenCache });
    await a.get('me');
    await b.get('me');
    expect(fx.op.tokenRequests()).toBe(before + 1);
    expect(fx.api.requests.at(-1)!.token).toBe(fx.api.requests.at(-2)!.token);
  });

  it('close() clears the expiry timer (the only timer a held token has)', async () => {
    const live = new Set<unknown>();
    const realSet = globalThis.setTimeout;
    const realClear = globalThis.clearTimeout;
    // Only long timers are the plugin's: the provider's 300 s tokens give a 300 s expiry timer.
    const set = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((run: () => void, ms?: number) => {
      const handle = realSet(run, ms);
      if ((ms ?? 0) >= 60_000) live.add(handle);
      return handle;
    }) as typeof setTimeout);
    const clear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation(((handle: Parameters<typeof clearTimeout>[0]) => {
      live.delete(handle);
      realClear(handle);
    }) as typeof clearTimeout);
    try {
      const client = apiClient();
      await client.get('me');
      expect(live.size).toBe(1);
      await client.close();
      expect(live.size).toBe(0);
    } finally {
      set.mockRestore();
      clear.mockRestore();
    }
  });

  it('close() leaves nothing that keeps the process alive', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/exit-after-close.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    const started = performance.now();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', fixture], { cwd: root, timeout: 15_000 });
    expect(stdout).toContain('closed');
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
