import type { Token, TokenCache } from './types.js';

/**
 * The default {@link TokenCache}: a `Map` in this process. Entries expire at the `expiresAt` given to
 * `set` (an expiry already past is stored for `fallbackLifetime` ms, as SPEC 2.2 allows). Share one
 * instance between clients of the same process; for several processes use a shared store.
 *
 * @example
 * ```ts
 * const tokenCache = new MemoryTokenCache()
 * const a = createClient({ baseURL, plugins: [oauth2({ ...config, tokenCache }, { cacheKey: 'svc' })] })
 * ```
 */
export class MemoryTokenCache implements TokenCache {
  private readonly entries = new Map<string, { token: Token; expiresAt: number }>();

  /** @param fallbackLifetime ms to keep a token whose expiry is already past. Default 1000. */
  constructor(private readonly fallbackLifetime = 1000) {}

  async get(key: string, stale?: string): Promise<Token | undefined> {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.token.accessToken === stale) return undefined;
    if (Date.now() >= entry.expiresAt) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.token;
  }

  async set(key: string, token: Token, expiresAt: number): Promise<void> {
    const now = Date.now();
    this.entries.set(key, { token, expiresAt: expiresAt > now ? expiresAt : now + this.fallbackLifetime });
  }

  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }

  /** Number of entries stored (expired ones included until read). */
  get size(): number {
    return this.entries.size;
  }
}
