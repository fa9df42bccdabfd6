import { OIDC_CLIENTS, startOIDCProvider, startProtectedAPI, type OIDCProvider, type ProtectedAPI } from '@sluice/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebApp, type WebApp } from '../../../examples/oauth-web-app.js';

// Runs examples/oauth-web-app.ts end to end: browser -> app -> oidc-provider -> app -> protected API.
let op: OIDCProvider;
let api: ProtectedAPI;
let app: WebApp;
beforeAll(async () => {
  op = await startOIDCProvider();
  api = await startProtectedAPI(op.issuer);
  app = await startWebApp({
    clientId: OIDC_CLIENTS.webApp.clientId, clientSecret: OIDC_CLIENTS.webApp.clientSecret,
    authorizationURL: op.authorizationURL, tokenURL: op.tokenURL, apiBaseURL: `${api.origin}/v1`,
  });
});
afterAll(async () => {
  await app.close();
  await api.close();
  await op.close();
});

async function get(url: string, cookie?: string): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}

/** Starts a login at the app: the session cookie and the authorization URL it redirects to. */
async function startLogin(): Promise<{ cookie: string; authorizationURL: string }> {
  const res = await get(`${app.origin}/login`);
  expect(res.status).toBe(302);
  const cookie = res.headers.get('set-cookie')!.split(';')[0]!;
  return { cookie, authorizationURL: res.headers.get('location')! };
}

describe('examples/oauth-web-app.ts', () => {
  it('signs the user in through the provider and calls the API as that user', async () => {
    const { cookie, authorizationURL } = await startLogin();
    expect(authorizationURL.startsWith(op.authorizationURL)).toBe(true);
    const callback = await op.login(authorizationURL, 'alice');
    expect(callback.startsWith(`${app.origin}/callback?`)).toBe(true);
    const afterCallback = await get(callback, cookie);
    expect(afterCallback.status).toBe(302);
    expect(afterCallback.headers.get('location')).toBe('/profile');
    const profile = await get(`${app.origin}/profile`, cookie);
    expect(profile.status).toBe(200);
    expect(await profile.text()).toBe('Hello alice');
    expect(api.requests.at(-1)!.claims!.sub).toBe('alice');
  });

  it('answers 400 to a callback whose state was tampered with, and exchanges nothing', async () => {
    const { cookie, authorizationURL } = await startLogin();
    const callback = new URL(await op.login(authorizationURL, 'mallory'));
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const before = op.tokenRequests();
    const res = await get(callback.href, cookie);
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/state mismatch/i);
    expect(op.tokenRequests()).toBe(before);
  });

  it('answers 400 to a callback from a browser that never started a login', async () => {
    const res = await get(`${app.origin}/callback?code=abc&state=def`);
    expect(res.status).toBe(400);
  });
});
