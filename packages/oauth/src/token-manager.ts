import { backoffDelay, SluiceError } from '@sluice/core';
import type { Clock } from './clock.js';
import type { ResolvedConfig } from './config.js';
import { DiscoveryError, TokenRequestError, TokenUnavailableError } from './errors.js';
import type { GrantParams, IssuedToken, TokenEndpoint } from './token-endpoint.js';
import type { Token, TokenCache, TokenEvent, TokenEventType } from './types.js';

/** Retries of a token request made while no valid token is held. */
export interface TokenRetry {
  maxAttempts: number;
  waitBase: number;
  maxWait: number;
}

/** What the manager needs besides the validated configuration. */
export interface TokenManagerInit {
  config: ResolvedConfig;
  endpoint: Pick<TokenEndpoint, 'request'>;
  cache: TokenCache;
  cacheKey: string;
  authorizationCode: string | undefined;
  codeVerifier: string | undefined;
  refreshToken: string | undefined;
  onTokenEvent: ((event: TokenEvent) => void) | undefined;
  /** Backoff before the next proactive refresh after a failed one. */
  refreshRetry: { waitBase: number; maxWait: number };
  tokenRetry: TokenRetry;
  /** Least ms between two token requests the manager makes on its own. */
  minTokenInterval: number;
  clock: Clock;
}

/**
 * When a background refresh of `token` becomes due: once less than min(buffer, lifetime / 2) remains.
 * A token shorter-lived than twice the buffer is thus refreshed at half its life, never in a loop.
 */
export function refreshDueAt(token: Token, buffer: number): number {
  return token.expiresAt - Math.min(buffer, token.expiresIn / 2);
}

/**
 * The access token lifecycle of SPEC 3.1 (none, valid, refreshing, expired) for one configuration:
 * lazy single-flight acquisition (retried on network errors and 5xx), a background refresh started by
 * a request once the token is due ({@link refreshDueAt}), backoff after a failed refresh while the old
 * token stays in use, expiry, invalidation after a 401 and forced refresh. Token requests the manager
 * makes on its own are at least `minTokenInterval` apart. An idle client makes no token requests.
 */
export class TokenManager {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  /** Bumped whenever `current` is replaced or dropped, so a stale expiry timer does nothing. */
  private generation = 0;
  private readonly timers = new Set<() => void>();
  private failures = 0;
  /** Clock time of the last token request, for the `minTokenInterval` floor. */
  private lastRequestAt = Number.NEGATIVE_INFINITY;
  /** No proactive refresh before this clock time (backoff after a failed refresh). */
  private retryAt = Number.NEGATIVE_INFINITY;
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

  /**
   * The held token when it is still valid: the synchronous fast path of every request. When the token
   * is due for refresh, starts a background refresh (the caller still gets the current token).
   */
  peek(): Token | undefined {
    const token = this.current;
    const now = this.init.clock.now();
    if (token === undefined || now >= token.expiresAt) return undefined;
    if (this.pending === undefined && this.refreshAllowed(token, now)) {
      this.pending = this.track(this.refresh(false));
      // Failures were reported as TokenRefreshFailed; requests keep the old token meanwhile.
      this.pending.catch(() => undefined);
    }
    return token;
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

  /**
   * After a 401 answered to `accessToken` (only if still current): forget it. The shared copy is not
   * deleted, since another instance may have replaced it already; the next acquisition asks the cache
   * for a token other than this one (SPEC 2.2 `get` with `stale`).
   */
  async invalidate(accessToken: string): Promise<void> {
    if (this.current?.accessToken !== accessToken) return;
    this.rejected = accessToken;
    this.drop();
  }

  /**
   * SPEC 4.2 ForceRefresh: deletes the cached token through the cache and fetches a new one. When that
   * fails, a token that is still valid stays in use (SPEC 3.1, 7) and the error is thrown.
   */
  async forceRefresh(): Promise<Token> {
    await this.idle();
    if (this.closed) throw new SluiceError('The oauth2 plugin is closed');
    this.pending = this.track(this.refresh(true));
    return this.pending;
  }

  /** Resolves once no token request of this manager is in flight (whatever its outcome). */
  async idle(): Promise<void> {
    while (this.pending !== undefined) await this.pending.catch(() => undefined);
  }

  /** Stops every timer and aborts token requests in flight. */
  close(): void {
    this.closed = true;
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.aborter.abort(new SluiceError('The oauth2 plugin is closed'));
  }

  private track(promise: Promise<Token>): Promise<Token> {
    const tracked = promise.finally(() => {
      if (this.pending === tracked) this.pending = undefined;
    });
    return tracked;
  }

  /** Whether a background refresh of the valid `token` may start now. */
  private refreshAllowed(token: Token, now: number): boolean {
    return this.canRefresh()
      && now >= refreshDueAt(token, this.init.config.refreshBuffer)
      && now >= this.retryAt
      && now >= this.lastRequestAt + this.init.minTokenInterval;
  }

  /** none/expired -> valid: the cache first, then the token endpoint (SPEC 3.1 first request). */
  private async acquire(): Promise<Token> {
    const cached = await this.readCache(this.rejected);
    if (cached !== undefined) {
      if (this.usable(cached)) {
        this.adopt(cached);
        return cached;
      }
      // An expired entry may hold a rotated-out refresh token: only use it when there is none here.
      this.refreshToken ??= cached.refreshToken;
    }
    let token: Token;
    try {
      // The floor: however short the lifetimes, no more than one token request per minTokenInterval.
      await this.waitUntil(this.lastRequestAt + this.init.minTokenInterval);
      token = await this.fetch(this.init.tokenRetry.maxAttempts);
    } catch (error) {
      // Instances waiting on this one's token (a shared cache's lock) need not wait for the lock to expire.
      await this.releaseCache();
      throw error;
    }
    await this.keep(token);
    this.emit('TokenAcquired', { expiresIn: token.expiresIn });
    return token;
  }

  /**
   * valid -> refreshing -> valid (SPEC 3.1), every step in order. On failure a still-valid token stays
   * in use, `TokenRefreshFailed` is emitted and the next proactive attempt waits a backoff.
   */
  private async refresh(forced: boolean): Promise<Token> {
    try {
      if (forced) {
        // SPEC 4.2: a forced refresh deletes the shared copy first.
        await this.deleteCache();
      } else {
        // Another instance sharing the cache may have refreshed already: take its token.
        const newer = await this.adoptNewer();
        if (newer !== undefined) return newer;
      }
      const token = await this.fetch(1);
      this.failures = 0;
      this.retryAt = Number.NEGATIVE_INFINITY;
      await this.keep(token);
      this.emit('TokenRefreshed', { expiresIn: token.expiresIn });
      return token;
    } catch (error) {
      const err = error instanceof Error ? error : new SluiceError('token refresh failed', { cause: error });
      await this.releaseCache();
      if (this.closed) throw err;
      this.failures++;
      this.retryAt = this.init.clock.now() + backoffDelay(this.failures, this.init.refreshRetry);
      this.emit('TokenRefreshFailed', { error: err });
      throw err;
    }
  }

  /**
   * A token in the shared cache that is newer than the held one, made current; undefined if none. The
   * held token is passed as stale, so a shared cache can let one instance replace it while others wait.
   */
  private async adoptNewer(): Promise<Token | undefined> {
    const cached = await this.readCache(this.current?.accessToken);
    if (cached === undefined || !this.usable(cached) || cached.expiresAt <= (this.current?.expiresAt ?? 0)) return undefined;
    this.adopt(cached);
    this.emit('TokenRefreshed', { expiresIn: cached.expiresIn });
    return cached;
  }

  private usable(token: Token): boolean {
    return this.init.clock.now() < token.expiresAt && token.accessToken !== this.rejected;
  }

  /** Makes a token from the cache current; it carries the latest refresh token of the shared store. */
  private adopt(token: Token): void {
    if (token.refreshToken !== undefined) this.refreshToken = token.refreshToken;
    this.install(token);
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

  /** One grant, sent up to `attempts` times while the failure is a network error or a 5xx. */
  private async fetch(attempts: number): Promise<Token> {
    const grant = this.nextGrant();
    for (let attempt = 1; ; attempt++) {
      const startedAt = this.init.clock.now();
      this.lastRequestAt = startedAt;
      let issued: IssuedToken;
      try {
        issued = await this.init.endpoint.request(grant, this.aborter.signal);
      } catch (error) {
        // RFC 6749 5.2: invalid_grant means the refresh token is dead (revoked, expired or replayed).
        if (grant.grant_type === 'refresh_token' && error instanceof TokenRequestError && error.error === 'invalid_grant') {
          if (this.refreshToken === grant.refresh_token) this.refreshToken = undefined;
        }
        if (attempt >= attempts || this.closed || !isTransient(error)) throw error;
        await this.waitUntil(this.init.clock.now() + backoffDelay(attempt, this.init.tokenRetry));
        continue;
      }
      // The lifetime counts from when the request left: the server started it no earlier.
      const token: Token = { ...issued, expiresAt: startedAt + issued.expiresIn };
      // RFC 6749 6 / RFC 9700 4.14.2: a rotated refresh token replaces the old one; otherwise the old one stays.
      if (token.refreshToken !== undefined) this.refreshToken = token.refreshToken;
      else if (this.refreshToken !== undefined) token.refreshToken = this.refreshToken;
      return token;
    }
  }

  /** Holds and shares a new token; one that is already expired (`expires_in` <= 0) serves its caller only. */
  private async keep(token: Token): Promise<void> {
    if (token.expiresIn <= 0) return this.releaseCache();
    this.install(token);
    await this.writeCache(token);
  }

  /** Makes `token` current and schedules its expiry (the only timer a held token has). */
  private install(token: Token): void {
    this.drop();
    this.current = token;
    if (this.closed) return;
    const generation = this.generation;
    this.timer(token.expiresAt - this.init.clock.now(), () => this.expire(generation));
  }

  /** Whether a new token can be had without the user (client credentials or a refresh token). */
  private canRefresh(): boolean {
    return this.refreshToken !== undefined || this.init.config.grantType === 'client_credentials';
  }

  /** valid -> expired (SPEC 3.1): drop the token and say so; the next request acquires anew. */
  private expire(generation: number): void {
    if (generation !== this.generation || this.current === undefined) return;
    this.drop();
    this.emit('TokenExpired', {});
  }

  private drop(): void {
    for (const cancel of this.timers) cancel();
    this.timers.clear();
    this.generation++;
    this.current = undefined;
  }

  private timer(delay: number, run: () => void): void {
    const cancel = this.init.clock.setTimer(delay, () => {
      this.timers.delete(cancel);
      run();
    });
    this.timers.add(cancel);
  }

  /**
   * Resolves at clock time `at` (at once when it has passed); rejects when the manager closes. The
   * timer keeps the process alive, since someone awaits it (unlike the expiry timer of {@link timer}).
   */
  private waitUntil(at: number): Promise<void> {
    const delay = at - this.init.clock.now();
    if (delay <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const signal = this.aborter.signal;
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = (): void => {
        cancel();
        reject(signal.reason as Error);
      };
      // A caller awaits this wait: its timer keeps the process alive (an unref'd one let Node exit 13, silently).
      const cancel = this.init.clock.setTimer(delay, () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, true);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async readCache(stale: string | undefined): Promise<Token | undefined> {
    try {
      return await this.init.cache.get(this.init.cacheKey, stale);
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

  private async deleteCache(): Promise<void> {
    try {
      await this.init.cache.delete(this.init.cacheKey);
    } catch {
      // The token is already dropped here; a cache outage must not fail the request or the refresh.
    }
  }

  /** After a failed (or unshared) token request: lets a shared cache free what it held for this one. */
  private async releaseCache(): Promise<void> {
    try {
      await this.init.cache.release?.(this.init.cacheKey);
    } catch {
      // Without the release other instances wait for the lock to expire, as before.
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

/** A failure worth another attempt: no answer, or a 5xx (RFC 9110 15.6), at discovery or the token endpoint. */
function isTransient(error: unknown): boolean {
  if (!(error instanceof TokenRequestError) && !(error instanceof DiscoveryError)) return false;
  return error.status === undefined || error.status >= 500;
}
