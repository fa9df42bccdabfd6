import type { Plugin } from '@sluice/core';
import type { OAuth2Config } from '@sluice/oauth';
import { UsageError } from './errors.js';
import { AUTH_ENV } from './command-options.js';
import type { Terminal } from './terminal.js';

/** The auth flags of every command; each also reads an environment variable (flags win). */
export interface AuthFlags {
  token?: string;
  user?: string;
  password?: string;
  clientId?: string;
  clientSecret?: string;
  tokenUrl?: string;
  authUrl?: string;
  scope?: string[];
  tokenParam?: string[];
  browser?: boolean;
}

/** How requests authenticate, decided from flags and environment. */
export type AuthPlan =
  | { kind: 'none' }
  | { kind: 'bearer'; token: string }
  | { kind: 'basic'; user: string; password: string }
  | { kind: 'client-credentials'; config: OAuth2Config }
  | { kind: 'authorization-code'; config: OAuth2Config; browser: boolean };

type Env = Readonly<Record<string, string | undefined>>;

function setting(flags: AuthFlags, env: Env, name: Exclude<keyof typeof AUTH_ENV, 'scope'>): string | undefined {
  const value = flags[name] ?? env[AUTH_ENV[name]];
  return value === '' ? undefined : value;
}

/** `name=value` pairs of `--token-param`. */
function tokenParams(pairs: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--token-param expects name=value, got ${JSON.stringify(pair.slice(0, 40))}`, 'for example --token-param resource=urn:example:api');
    out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/**
 * Decides the auth method: a bearer token, Basic, OAuth client credentials (client id, token URL and a
 * secret, or without a secret the client certificate of `--cert`/`--pfx`: RFC 8705 `tls_client_auth`),
 * or OAuth authorization code with PKCE (client id, token URL and authorization URL). Mixing two methods
 * is a usage error rather than a guess.
 */
export function resolveAuth(flags: AuthFlags, env: Env, clientCertificate = false): AuthPlan {
  const token = setting(flags, env, 'token');
  const user = setting(flags, env, 'user');
  const password = setting(flags, env, 'password');
  const clientId = setting(flags, env, 'clientId');
  const tokenURL = setting(flags, env, 'tokenUrl');
  const authURL = setting(flags, env, 'authUrl');
  const methods = [token && 'a bearer token', user && 'Basic (user)', clientId && 'OAuth (client id)'].filter(Boolean);
  if (methods.length > 1) {
    throw new UsageError(`choose one auth method, got ${methods.join(' and ')}`, 'check the SLUICE_* variables in your environment too');
  }
  if (flags.password !== undefined && !user) throw new UsageError('--password needs --user', `pass --user or set ${AUTH_ENV.user}`);
  if (flags.clientSecret !== undefined && !clientId) throw new UsageError('--client-secret needs a client id', `pass --client-id or set ${AUTH_ENV.clientId}`);
  if (token) return { kind: 'bearer', token };
  if (user) {
    if (password === undefined) throw new UsageError('--user needs a password', `set ${AUTH_ENV.password} (or --password)`);
    return { kind: 'basic', user, password };
  }
  if (!clientId) {
    if (tokenURL || authURL) throw new UsageError('OAuth needs a client id', `pass --client-id or set ${AUTH_ENV.clientId}`);
    return { kind: 'none' };
  }
  if (!tokenURL) throw new UsageError('OAuth needs the token endpoint', `pass --token-url or set ${AUTH_ENV.tokenUrl}`);
  const scopeText = flags.scope?.length ? flags.scope.join(' ') : env[AUTH_ENV.scope] ?? '';
  const scopes = scopeText.split(/\s+/).filter(Boolean);
  const clientSecret = setting(flags, env, 'clientSecret');
  const extraParams = tokenParams(flags.tokenParam ?? []);
  const base = { clientId, tokenURL, scopes, extraParams, ...(clientSecret === undefined ? {} : { clientSecret }) };
  if (authURL) return { kind: 'authorization-code', config: { ...base, grantType: 'authorization_code', authorizationURL: authURL, pkce: true }, browser: flags.browser !== false };
  if (clientSecret === undefined && clientCertificate) {
    // RFC 8705 2: the client certificate of the TLS connection authenticates the client (SAP BTP x509 credentials).
    return { kind: 'client-credentials', config: { ...base, grantType: 'client_credentials', tokenEndpointAuthMethod: 'tls_client_auth' } };
  }
  if (clientSecret === undefined) {
    throw new UsageError(
      'OAuth client credentials need a client secret or a client certificate',
      `set ${AUTH_ENV.clientSecret}, pass --cert/--key or --pfx (tls_client_auth), or pass --auth-url for a sign-in in the browser`,
    );
  }
  return { kind: 'client-credentials', config: { ...base, grantType: 'client_credentials' } };
}

/**
 * The secret values of an auth plan (bearer token, password and `user:password`, client secret). The
 * client scrubs them, in every form a server may echo them in, from every error and event, so a service
 * answering `the credential <t> is not valid` never gets <t> printed.
 */
export function authSecrets(plan: AuthPlan): string[] {
  switch (plan.kind) {
    case 'bearer': return [plan.token];
    case 'basic': return [plan.password, `${plan.user}:${plan.password}`];
    case 'client-credentials':
    case 'authorization-code': return plan.config.clientSecret === undefined ? [] : [plan.config.clientSecret];
    case 'none': return [];
  }
}

/** Headers and plugins that authenticate requests; the authorization-code plan signs in first. */
export async function authHttpOptions(plan: AuthPlan, terminal: Terminal, signal: AbortSignal): Promise<{ headers: Record<string, string>; plugins: Plugin[] }> {
  switch (plan.kind) {
    case 'none':
      return { headers: {}, plugins: [] };
    case 'bearer':
      return { headers: { authorization: `Bearer ${plan.token}` }, plugins: [] };
    case 'basic':
      // RFC 7617 2: base64 of user-id ":" password, in UTF-8.
      return { headers: { authorization: `Basic ${Buffer.from(`${plan.user}:${plan.password}`, 'utf8').toString('base64')}` }, plugins: [] };
    // @sluice/oauth (and the browser sign-in) load only for a command that uses OAuth.
    case 'client-credentials': {
      const { oauth2 } = await import('@sluice/oauth');
      return { headers: {}, plugins: [oauth2(plan.config)] };
    }
    case 'authorization-code': {
      const [{ oauth2 }, { authorizeInBrowser }] = await Promise.all([import('@sluice/oauth'), import('./browser-login.js')]);
      const login = await authorizeInBrowser(plan.config, { terminal, openBrowser: plan.browser, signal });
      const config = { ...plan.config, redirectURL: login.redirectURL };
      return { headers: {}, plugins: [oauth2(config, { authorizationCode: login.code, ...(login.codeVerifier ? { codeVerifier: login.codeVerifier } : {}) })] };
    }
  }
}
