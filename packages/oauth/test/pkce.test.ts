import { describe, expect, it } from 'vitest';
import {
  AuthorizationError, buildAuthorizationURL, codeChallengeS256, createCodeVerifier, StateMismatchError, verifyCallback,
  type OAuth2Config,
} from '@sluice/oauth';

const config: OAuth2Config = {
  clientId: 'web app',
  clientSecret: 's3cret',
  tokenURL: 'https://login.example.com/token',
  authorizationURL: 'https://login.example.com/authorize?tenant=acme',
  redirectURL: 'https://app.example.com/callback',
  grantType: 'authorization_code',
  scopes: ['openid', 'api:read'],
  pkce: true,
};

describe('PKCE (RFC 7636)', () => {
  it('derives the appendix B challenge from the appendix B verifier', async () => {
    expect(await codeChallengeS256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('creates 43-character unreserved verifiers that differ every time', () => {
    const a = createCodeVerifier();
    const b = createCodeVerifier();
    expect(a).toMatch(/^[A-Za-z0-9\-._~]{43}$/);
    expect(a).not.toBe(b);
  });
});

describe('buildAuthorizationURL', () => {
  it('puts the RFC 6749 4.1.1 parameters, the state and an S256 challenge into the URL', async () => {
    const { url, state, codeVerifier } = await buildAuthorizationURL(config);
    const parsed = new URL(url);
    expect(parsed.origin + parsed.pathname).toBe('https://login.example.com/authorize');
    const p = parsed.searchParams;
    expect(p.get('tenant')).toBe('acme');
    expect(p.get('response_type')).toBe('code');
    expect(p.get('client_id')).toBe('web app');
    expect(p.get('redirect_uri')).toBe('https://app.example.com/callback');
    expect(p.get('scope')).toBe('openid api:read');
    expect(p.get('state')).toBe(state);
    expect(p.get('code_challenge_method')).toBe('S256');
    expect(p.get('code_challenge')).toBe(await codeChallengeS256(codeVerifier!));
    expect(url).not.toContain('s3cret');
    expect(url).not.toContain(codeVerifier!);
  });

  it('issues a state of at least 128 random bits, new for every request', async () => {
    const states = await Promise.all(Array.from({ length: 20 }, async () => (await buildAuthorizationURL(config)).state));
    for (const state of states) expect(Buffer.from(state, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    expect(new Set(states).size).toBe(20);
  });

  it('leaves PKCE out when pkce is false for a confidential client', async () => {
    const { url, codeVerifier } = await buildAuthorizationURL({ ...config, pkce: false });
    expect(codeVerifier).toBeUndefined();
    expect(new URL(url).searchParams.has('code_challenge')).toBe(false);
  });

  it('refuses a public client without PKCE', async () => {
    await expect(buildAuthorizationURL({ ...config, clientSecret: undefined, pkce: false })).rejects.toThrow(/pkce/);
  });

  it('needs an authorization URL', async () => {
    await expect(buildAuthorizationURL({ ...config, authorizationURL: undefined })).rejects.toThrow(/authorizationURL/);
  });
});

describe('verifyCallback', () => {
  it('returns the code when the state matches', () => {
    expect(verifyCallback('https://app.example.com/callback?code=abc&state=xyz', 'xyz')).toBe('abc');
    expect(verifyCallback(new URLSearchParams({ code: 'abc', state: 'xyz' }), 'xyz')).toBe('abc');
  });

  it('rejects a tampered, missing or truncated state without revealing the code', () => {
    for (const url of [
      'https://app.example.com/callback?code=abc&state=xyZ',
      'https://app.example.com/callback?code=abc',
      'https://app.example.com/callback?code=abc&state=xy',
    ]) {
      let error: unknown;
      try { verifyCallback(url, 'xyz') } catch (e) { error = e }
      expect(error).toBeInstanceOf(StateMismatchError);
      expect(String((error as Error).message)).not.toContain('abc');
    }
  });

  it('turns an error callback into AuthorizationError with the RFC 6749 4.1.2.1 fields', () => {
    let error: unknown;
    try { verifyCallback('https://app.example.com/cb?error=access_denied&error_description=user%20said%20no&state=s', 's') } catch (e) { error = e }
    expect(error).toBeInstanceOf(AuthorizationError);
    expect(error).toMatchObject({ error: 'access_denied', errorDescription: 'user said no' });
  });

  it('checks the state before believing an error callback', () => {
    expect(() => verifyCallback('https://app.example.com/cb?error=access_denied&state=forged', 's')).toThrow(StateMismatchError);
  });
});
