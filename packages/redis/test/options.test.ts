import { ConfigError } from '@sluice/core';
import { RedisRateLimiter, RedisTokenCache } from '@sluice/redis';
import { describe, expect, it } from 'vitest';

const redis = 'redis://127.0.0.1:1';

function configError(make: () => unknown): ConfigError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('no ConfigError thrown');
}

describe('bad options throw ConfigError at construction', () => {
  it('names an unknown key and suggests the known one', () => {
    const error = configError(() => new RedisTokenCache({ redis, encryptionkey: 'x' } as never));
    expect(error.message).toBe('encryptionkey is not a known option; did you mean encryptionKey?');
    expect(configError(() => new RedisRateLimiter({ redis, key: 'k', rate: 5 } as never)).message).toContain('did you mean requestsPerSecond?');
  });

  it('refuses a connection that is neither an ioredis client nor a redis URL', () => {
    expect(configError(() => new RedisTokenCache({ redis: 'http://127.0.0.1:6379' })).option).toBe('redis');
    expect(configError(() => new RedisRateLimiter({ redis: {} as never, key: 'k', requestsPerSecond: 1 })).option).toBe('redis');
  });

  it('refuses an encryption key that is not 32 bytes, without echoing it', () => {
    const error = configError(() => new RedisTokenCache({ redis, encryptionKey: 'c2hvcnQta2V5' }));
    expect(error.option).toBe('encryptionKey');
    expect(error.message).toContain('got 9 bytes');
    expect(error.message).not.toContain('c2hvcnQta2V5');
    expect(configError(() => new RedisTokenCache({ redis, encryptionKey: new Uint8Array(16) })).option).toBe('encryptionKey');
    expect(configError(() => new RedisTokenCache({ redis, encryptionKey: 'not base64!' })).option).toBe('encryptionKey');
  });

  it('refuses bad durations, rates, counts, namespaces and listeners', () => {
    expect(configError(() => new RedisTokenCache({ redis, lockWait: 0 })).option).toBe('lockWait');
    expect(configError(() => new RedisTokenCache({ redis, namespace: 'a b' })).option).toBe('namespace');
    expect(configError(() => new RedisTokenCache({ redis, onEvent: 'log' as never })).option).toBe('onEvent');
    expect(configError(() => new RedisRateLimiter({ redis, key: '', requestsPerSecond: 1 })).option).toBe('key');
    expect(configError(() => new RedisRateLimiter({ redis, key: 'k', requestsPerSecond: 0 })).option).toBe('requestsPerSecond');
    expect(configError(() => new RedisRateLimiter({ redis, key: 'k', requestsPerSecond: 1, burst: 1.5 })).option).toBe('burst');
    expect(configError(() => new RedisRateLimiter({ redis, key: 'k', requestsPerSecond: 1, instances: 0 })).option).toBe('instances');
    expect(configError(() => new RedisRateLimiter({ redis, key: 'k', requestsPerSecond: 1, failFast: 'yes' as never })).option).toBe('failFast');
  });
});
