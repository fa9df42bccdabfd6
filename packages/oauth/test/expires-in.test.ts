import { createClient, type Client } from '@sluice/core';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { MemoryTokenCache, oauth2, TokenRequestError, type OAuth2Options, type TokenEvent } from '@sluice/oauth';

// RFC 6749 5.1 expires_in, as real servers send it: absent, 0, negative, a numeric string, garbage.
const track = closeAfterEach();

async function setup(expiresIn: unknown, options: OAuth2Options = {}): Promise<{ client: Client; server: TestServer; cache: MemoryTokenCache; events: TokenEvent[] }> {
  let issued = 0;
  const server = track(await startServer((req, res) => {
    if (req.url === '/token') {
      const body: Record<string, unknown> = { access_token: `tok-${++issued}`, token_type: 'Bearer' };
      if (expiresIn !== undefined) body['expires_in'] = expiresIn;
      sendJSON(res, 200, body);
      return;
    }
    sendJSON(res, 200, { token: req.headers.authorization ?? null });
  }));
  const cache = new MemoryTokenCache();
  const events: TokenEvent[] = [];
  const client = track(createClient({
    baseURL: `${server.origin}/api`,
    plugins: [oauth2(
      { clientId: 'svc', clientSecret: 's', tokenURL: `${server.origin}/token`, grantType: 'client_credentials', tokenCache: cache },
      { cacheKey: 'svc', onTokenEvent: (e) => events.push(e), minTokenInterval: 0, ...options },
    )],
  }));
  return { client, server, cache, events };
}

const tokenRequests = (server: TestServer): number => server.requests.filter((r) => r.url === '/token').length;

describe('expires_in', () => {
  it('absent: the token lives defaultExpiresIn ms', async () => {
    const { client, server, events } = await setup(undefined, { defaultExpiresIn: 90_000 });
    await client.get('a');
    await client.get('b');
    expect(tokenRequests(server)).toBe(1);
    expect(events[0]).toMatchObject({ type: 'TokenAcquired', expiresIn: 90_000 });
  });

  it('absent, without defaultExpiresIn: one hour', async () => {
    const { client, events } = await setup(undefined);
    await client.get('a');
    expect(events[0]!.expiresIn).toBe(3600_000);
  });

  it('a numeric string counts in seconds', async () => {
    const { client, server, events } = await setup('120');
    await client.get('a');
    await client.get('b');
    expect(tokenRequests(server)).toBe(1);
    expect(events[0]!.expiresIn).toBe(120_000);
  });

  it.each([0, -5, '0'])('%j: already expired, used for the waiting request only and never cached', async (value) => {
    const { client, server, cache } = await setup(value);
    expect(await client.getJSON('a')).toEqual({ token: 'Bearer tok-1' });
    expect(await client.getJSON('b')).toEqual({ token: 'Bearer tok-2' });
    expect(tokenRequests(server)).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('garbage is a TokenRequestError naming expires_in', async () => {
    const { client } = await setup('soon');
    const error = await client.get('a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenRequestError);
    expect((error as Error).message).toMatch(/expires_in "soon" is not a number of seconds/);
  });
});
