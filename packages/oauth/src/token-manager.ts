import { backoffDelay, SluiceError } from '@sluice/core';
import type { ResolvedConfig } from './config.js';
import { TokenRequestError, TokenUnavailableError } from './errors.js';
import type { GrantParams, TokenEndpoint } from './token-endpoint.js';
import type { Token, TokenCache, TokenEvent, TokenEventType } from './types.js';

/** Longest delay setTimeout accepts; longer waits are cut to it (the refresh then just happens early). */
const MAX_TIMER = 2 ** 31 - 1;
/** A refresh is never scheduled sooner than this (or half the remaining lifetime), so it cannot spin. */
const MIN_REFRESH_DELAY = 1000;

/** What the manager needs besides the validated configuration. */
export interface TokenManagerInit {
  config: ResolvedConfig;
  endpoint: TokenEndpoint;
  cache: TokenCache;
  cacheKey: string;
  authorizationCode: string | undefined;
  codeVerifier: string | undefined;
  refreshToken: string | undefined;
  onTokenEvent: ((event: TokenEvent) => void) | undefined;
  refreshRetry: { waitBase: number; maxWait: number };
}

/**
 * The access token lifecycle of SPEC 3.1 (none, valid, refreshing, expired) for one configuration:
 * lazy single-flight acquisition, background refresh at expiry minus `refreshBuffer`, retries with
 * backoff after a failed refresh while the old token stays in use, expiry, invalidation after a 401 and
 * forced refresh. Every timer is unref'd and cleared by `close()`.
 */
export class TokenManager {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  /** Bumped whenever `current` is replaced or dropped, so stale timers and refreshes do nothing. */
  private generation = 0;
  private timers = new Set<ReturnType<typeof setTimeout>>();
  private failures = 0;
  private refreshToken: string | undefined;
  private code: { code: string; verifier: string | undefined } | undefined;
  private closed = false;
  /** The last token the API refused: a shared cache may still hand it out while its delete is in flight. */
  private rejected: string | undefined;
  private readonly aborter = new AbortController();

  constructor(private readonly init: TokenManagerInit) {
    this.refreshToken = init.refreshToken;
    this.code = init.authorizationCode === undefined ? undefined : { code: init.authorizationCode, verifier: init.codeVerifier };
  }

  /** The held token when it is still valid; the synchronous fast path of every request. */
  peek(): Token | undefined {
    const token = this.current;
    return token !== undefined && Date.now() < token.expiresAt ? token : undefined;
  }

  /** A valid token: the held one, or one acquired now (concurrent callers share one acquisition). */
  get(): Promise<Token> {
    if (this.closed) return Promise.reject(new SluiceError('The oauth2 plugin is closed'));
    const token = this.peek();
    if (token !== undefined) return Promise.resolve(token);
    if (this.current !== undefined) this.expire(this.generation);
    this.pending ??= this.track(this.acquire());
    return this.pending;
  }

  /** After a 401 answered to `accessToken`: forget it here and in the cache (only if still current). */
  async invalidate(accessToken: string): Promise<void> {
    if (this.current?.accessToken !== accessToken) return;
    this.rejected = accessToken;
    this.drop();
    try {
      await this.init.cache.delete(this.init.cacheKey);
    } catch {
      // The token is already dropped here; a cache outage must not fail the retried request.
    }
  }

  /** SPEC 4.2 ForceRefresh: deletes the cached token through the cache and fetches a new one. */
  async forceRefresh(): Promise<Token> {
    while (this.pending !== undefined) await this.pending.catch(() => undefined);
    if (this.closed) throw new SluiceError('The oauth2 plugin is closed');
    this.drop();
    this.pending = this.track(this.refresh(true));
    return this.pending;
  }

  /** Stops every timer and aborts token requests in flight. */
  close(): void {
    this.closed = true;
    this.clearTimers();
    this.aborter.abort(new SluiceError('The oauth2 plugin is closed'));
  }

  private track(promise: Promise<Token>): Promise<Token> {
    const tracked = promise.finally(() => {
      if (this.pending === tracked) this.pending = undefined;
    });
    return tracked;
  }

  /** none/expired -> valid: the cache first, then the token endpoint (SPEC 3.1 first request). */
  private async acquire(): Promise<Token> {
    const cached = await this.readCache();
    if (cached !== undefined) {
      if (Date.now() < cached.expiresAt && cached.accessToken !== this.rejected) {
        // A live cached token carries the latest refresh token of the shared store.
        if (cached.refreshToken !== undefined) this.refreshToken = cached.refreshToken;
        this.install(cached);
        return cached;
      }
      // An expired entry may hold a rotated-out refresh token: only use it when there is none here.
      this.refreshToken ??= cached.refreshToken;
    }
    const token = await this.fetch();
    this.install(token);
    await this.writeCache(token);
    this.emit('TokenAcquired', { expiresIn: token.expiresIn });
    return token;
  }

  /** valid -> refreshing -> valid; on failure the old token stays (SPEC 3.1) and a retry is scheduled. */
  private async refresh(forced: boolean): Promise<Token> {
    const generation = this.generation;
    try {
      if (forced) await this.init.cache.delete(this.init.cacheKey);
      const token = await this.fetch();
      if (this.closed) return token;
      this.failures = 0;
      this.install(token);
      await this.writeCache(token);
      this.emit('TokenRefreshed', { expiresIn: token.expiresIn });
      return token;
    } catch (error) {
      const err = error instanceof Error ? error : new SluiceError('token refresh failed', { cause: error });
      if (this.closed) throw err;
      this.failures++;
      this.emit('TokenRefreshFailed', { error: err });
      if (!forced && generation === this.generation && !(err instanceof TokenUnavailableError)) this.scheduleRetry(generation);
      throw err;
    }
  }

  /** Picks the grant: a refresh token when held, else the configured grant (a code only once). */
  private nextGrant(): GrantParams {
    const { config } = this.init;
    // RFC 6749 6: a held refresh token renews access without repeating the original grant.
    if (this.refreshToken !== undefined) return { grant_type: 'refresh_token', refresh_token: this.refreshToken };
    if (config.grantType === 'client_credentials') return { grant_type: 'client_credentials' };
    if (config.grantType === 'authorization_code' && this.code !== undefined) {
      const { code, verifier } = this.code;
      // RFC 6749 10.5: an authorization code is used once, so it is forgotten before it is sent.
      this.code = undefined;
      // RFC 6749 4.1.3: redirect_uri must repeat the one of the authorization request.
      const grant: GrantParams = { grant_type: 'authorization_code', code, redirect_uri: config.redirectURL! };
      // RFC 7636 4.5: the verifier proves this client sent the challenge.
      if (verifier !== undefined) grant.code_verifier = verifier;
      return grant;
    }
    throw new TokenUnavailableError(
      'No access token can be obtained: the authorization code was already used and there is no refresh token; send the user through authorization again',
    );
  }

  private async fetch(): Promise<Token> {
    const grant = this.nextGrant();
    let token: Token;
    try {
      token = await this.init.endpoint.request(grant, this.aborter.signal);
    } catch (error) {
      // RFC 6749 5.2: invalid_grant means the refresh token is dead (revoked, expired or replayed).
      if (grant.grant_type === 'refresh_token' && error instanceof TokenRequestError && error.error === 'invalid_grant') {
        if (this.refreshToken === grant.refresh_token) this.refreshToken = undefined;
      }
      throw error;
    }
    // RFC 6749 6 / RFC 9700 4.14.2: a rotated refresh token replaces the old one; otherwise the old one stays.
    if (token.refreshToken !== undefined) this.refreshToken = token.refreshToken;
    else if (this.refreshToken !== undefined) token.refreshToken = this.refreshToken;
    return token;
  }

  /** Makes `token` current and schedules its refresh and its expiry. */
  private install(token: Token): void {
    this.clearTimers();
    this.generation++;
    this.current = token;
    if (this.closed) return;
    const generation = this.generation;
    const remaining = token.expiresAt - Date.now();
    if (this.canRefresh()) {
      const delay = Math.max(remaining - this.init.config.refreshBuffer, Math.min(remaining / 2, MIN_REFRESH_DELAY));
      this.timer(delay, () => this.backgroundRefresh(generation));
    }
    this.timer(remaining, () => this.expire(generation));
  }

  /** Whether a new token can be had without the user (client credentials or a refresh token). */
  private canRefresh(): boolean {
    return this.refreshToken !== undefined || this.init.config.grantType === 'client_credentials';
  }

  private backgroundRefresh(generation: number): void {
    if (this.closed || generation !== this.generation || this.pending !== undefined) return;
    this.pending = this.track(this.refresh(false));
    // Failures were reported as TokenRefreshFailed; requests keep the old token meanwhile.
    this.pending.catch(() => undefined);
  }

  private scheduleRetry(generation: number): void {
    const token = this.current;
    if (token === undefined || !this.canRefresh()) return;
    const delay = backoffDelay(this.failures, this.init.refreshRetry);
    // No retry after expiry: the expiry timer takes over and the next request acquires.
    if (Date.now() + delay >= token.expiresAt) return;
    this.timer(delay, () => this.backgroundRefresh(generation));
  }

  /** valid -> expired (SPEC 3.1): drop the token and say so; the next request acquires anew. */
  private expire(generation: number): void {
    if (generation !== this.generation || this.current === undefined) return;
    this.drop();
    this.emit('TokenExpired', {});
  }

  private drop(): void {
    this.clearTimers();
    this.generation++;
    this.current = undefined;
  }

  private timer(delay: number, run: () => void): void {
    const handle = setTimeout(() => {
      this.timers.delete(handle);
      run();
    }, Math.min(Math.max(delay, 0), MAX_TIMER));
    handle.unref();
    this.timers.add(handle);
  }

  private clearTimers(): void {
    for (const handle of this.timers) clearTimeout(handle);
    this.timers.clear();
  }

  private async readCache(): Promise<Token | undefined> {
    try {
      return await this.init.cache.get(this.init.cacheKey);
    } catch {
      // A cache outage costs a token request, not the API request.
      return undefined;
    }
  }

  private async writeCache(token: Token): Promise<void> {
    try {
      await this.init.cache.set(this.init.cacheKey, token, token.expiresAt);
    } catch {
      // The token is held here anyway; the cache only saves other instances a request.
    }
  }

  private emit(type: TokenEventType, data: Omit<TokenEvent, 'type'>): void {
    try {
      this.init.onTokenEvent?.({ type, ...data });
    } catch {
      // An observer's bug must not break token handling.
    }
  }
}
