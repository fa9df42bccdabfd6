import { createClient, type Client } from '@sluice/core';
import { OIDC_CLIENTS } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { oauth2, TokenRequestError, type OAuth2Config, type OAuth2Options } from '@sluice/oauth';
import { eventLog } from './events.js';
import { useProvider } from './provider-fixture.js';

// Issue 10 / 17: a blip at the token endpoint does not fail the first request.
const fx = useProvider();

function apiClient(options: OAuth2Options = {}, extra: Partial<OAuth2Config> = {}): Client {
  const config: OAuth2Config = {
    clientId: OIDC_CLIENTS.service.clientId, clientSecret: OIDC_CLIENTS.service.clientSecret, tokenURL: fx.op.tokenURL,
    grantType: 'client_credentials', scopes: ['api:read'], ...extra,
  };
  return fx.track(createClient({ baseURL: `${fx.api.origin}/v1`, plugins: [oauth2(config, { tokenRetry: { waitBase: 10, maxWait: 50 }, ...options })] }));
}

describe('retries of the first token request', () => {
  it('retries a 503 and succeeds on the third attempt', async () => {
    const before = fx.op.tokenRequests();
    fx.op.failTokenRequests('unavailable', 2);
    const log = eventLog();
    const client = apiClient({ onTokenEvent: log.onTokenEvent });
    expect(await client.getJSON('me')).toMatchObject({ sub: 'service' });
    expect(fx.op.tokenRequests() - before).toBe(3);
    expect(log.types()).toEqual(['TokenAcquired']);
  });

  it('retries a dropped connection', async () => {
    const before = fx.op.tokenRequests();
    fx.op.failTokenRequests('drop', 1);
    const client = apiClient();
    expect(await client.getJSON('me')).toMatchObject({ sub: 'service' });
    expect(fx.op.tokenRequests() - before).toBe(2);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const before = fx.op.tokenRequests();
    fx.op.failTokenRequests('unavailable');
    const client = apiClient({ tokenRetry: { maxAttempts: 2, waitBase: 10, maxWait: 20 } });
    const error = await client.get('me').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect(error).toMatchObject({ status: 503 });
    expect(fx.op.tokenRequests() - before).toBe(2);
  });

  it('does not retry a refusal (4xx) nor with tokenRetry: false', async () => {
    const before = fx.op.tokenRequests();
    const refused = apiClient({}, { clientSecret: 'wrong-secret' });
    expect(await refused.get('me').catch((e: unknown) => e)).toMatchObject({ error: 'invalid_client' });
    expect(fx.op.tokenRequests() - before).toBe(1);
    fx.op.failTokenRequests('unavailable', 1);
    const single = apiClient({ tokenRetry: false });
    expect(await single.get('me').catch((e: unknown) => e)).toMatchObject({ status: 503 });
    expect(fx.op.tokenRequests() - before).toBe(2);
  });
});
