import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { createAuthServerHTTP } from '../src/auth-server-http.js';
import { resolveConfig } from '../src/config.js';
import { MemoryTokenCache } from '../src/memory-cache.js';
import { TokenEndpoint } from '../src/token-endpoint.js';
import { refreshDueAt, TokenManager } from '../src/token-manager.js';
import type { Token, TokenEvent } from '../src/types.js';
import { ManualClock } from './manual-clock.js';

// Issue 10: how often each token lifetime makes the plugin ask for a token, idle and busy. A real token
// endpoint on 127.0.0.1 answers; a manual clock lets hours pass in milliseconds (no timing in the asserts).
const track = closeAfterEach();
const BUFFER = 30_000;
const FLOOR = 1000;

interface Rig {
  clock: ManualClock;
  manager: TokenManager;
  server: TestServer;
  events: TokenEvent[];
  /** One API request's worth of token: resolves with the token the request would carry. */
  request(): Promise<Token>;
}

async function rig(lifetimeSeconds: number): Promise<Rig> {
  let issued = 0;
  const server = track(await startServer((_req, res) => {
    sendJSON(res, 200, { access_token: `tok-${++issued}`, token_type: 'Bearer', expires_in: lifetimeSeconds });
  }));
  const clock = new ManualClock();
  const config = resolveConfig({ clientId: 'svc', clientSecret: 's', tokenURL: `${server.origin}/token`, grantType: 'client_credentials' });
  const http = track(createAuthServerHTTP({ timeout: 10_000 }));
  const endpoint = new TokenEndpoint(config, { http, defaultExpiresIn: 3600_000, events: () => undefined });
  let inFlight = 0;
  const events: TokenEvent[] = [];
  const manager = new TokenManager({
    config, cache: new MemoryTokenCache(), cacheKey: 'k', authorizationCode: undefined, codeVerifier: undefined, refreshToken: undefined,
    onTokenEvent: (e) => events.push(e), refreshRetry: { waitBase: 1000, maxWait: 30_000 },
    tokenRetry: { maxAttempts: 1, waitBase: 100, maxWait: 100 }, minTokenInterval: FLOOR, clock,
    // The real endpoint, counted: a request in flight is real I/O the test waits for, not clock time.
    endpoint: { request: (grant, signal) => { inFlight++; return endpoint.request(grant, signal).finally(() => inFlight--); } },
  });
  track({ close: async () => manager.close() });
  const request = async (): Promise<Token> => {
    let result: { token: Token } | undefined;
    const pending = manager.get().then((token) => (result = { token }));
    while (result === undefined) {
      await new Promise((resolve) => setImmediate(resolve));
      // Nothing on the wire and still no token: the manager waits on the clock (the floor), its only timer.
      if (result === undefined && inFlight === 0) await clock.advanceToNextTimer();
    }
    await pending;
    return result.token;
  };
  return { clock, manager, server, events, request };
}

/** A busy client: a request every `step` ms for `duration` ms. Returns how many tokens were requested. */
async function busy(r: Rig, duration: number, step: number): Promise<number> {
  const end = r.clock.now() + duration;
  while (r.clock.now() < end) {
    const token = await r.request();
    // Never an expired token on a request.
    expect(token.expiresAt).toBeGreaterThan(r.clock.now());
    await r.manager.idle();
    await r.clock.advance(step);
  }
  return r.server.requests.length;
}

// lifetime s, busy duration ms, request step ms, expected token requests while busy (first one included).
const CASES: [number, number, number, number][] = [
  // Shorter than the floor: one token a second, however busy (the bug was ~37 a second, idle or not).
  [0.05, 10_000, 20, 11],
  [1, 20_000, 100, 21],
  // Refreshed at half-life: every 5 s, 15.5 s (next request at 16 s), 30 s.
  [10, 200_000, 1000, 41],
  [31, 640_000, 1000, 41],
  [60, 1_200_000, 1000, 41],
  // The buffer rule: 30 s before expiry, every 3570 s.
  [3600, 4 * 3600_000, 10_000, 5],
];

describe('token requests per lifetime (refresh when less than min(buffer, lifetime/2) remains, at most one per second)', () => {
  it.each(CASES)('lifetime %s s: one token request while idle', async (lifetime, duration) => {
    const r = await rig(lifetime);
    await r.request();
    await r.clock.advance(duration);
    await r.manager.idle();
    expect(r.server.requests).toHaveLength(1);
    if (lifetime > 0) expect(r.events.map((e) => e.type)).toEqual(['TokenAcquired', 'TokenExpired']);
  });

  it.each(CASES)('lifetime %s s: busy for the duration, about the expected token requests', async (lifetime, duration, step, expected) => {
    const r = await rig(lifetime);
    const requests = await busy(r, duration, step);
    expect(requests).toBeGreaterThanOrEqual(expected - 1);
    expect(requests).toBeLessThanOrEqual(expected + 1);
  });

  it('computes the refresh time from the lifetime', () => {
    const at = (seconds: number) => refreshDueAt({ accessToken: 't', tokenType: 'Bearer', expiresAt: seconds * 1000, expiresIn: seconds * 1000 }, BUFFER) / 1000;
    expect([0.05, 1, 10, 31, 60, 3600].map(at)).toEqual([0.025, 0.5, 5, 15.5, 30, 3570]);
  });
});
