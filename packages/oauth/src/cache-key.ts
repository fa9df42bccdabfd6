import { createHash } from 'node:crypto';
import type { ResolvedConfig } from './config.js';

/**
 * The cache key of a configuration: a hash over token URL (or issuer), client id, grant, sorted scopes and sorted
 * extra parameters. The secret is not part of it, and hashing keeps extra parameter values out of a
 * shared store's key listing.
 */
export function cacheKeyFor(config: ResolvedConfig): string {
  const material = JSON.stringify([
    config.tokenURL ?? config.issuer,
    config.clientId,
    config.grantType,
    [...config.scopes].sort(),
    Object.entries(config.extraParams).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
  return `sluice:oauth2:${createHash('sha256').update(material).digest('base64url')}`;
}
