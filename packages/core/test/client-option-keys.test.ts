import { describe, expect, it } from 'vitest';
import { ConfigError, createClient } from '@sluice/core';

describe('createClient refuses unknown option keys', () => {
  it('names the key and the nearest valid one', () => {
    expect(() => createClient({ baseUrl: 'https://h/v1' } as never)).toThrow(/baseUrl is not a known option; did you mean baseURL\?/);
    expect(() => createClient({ timout: 5 } as never)).toThrow(/did you mean timeout\?/);
    expect(() => createClient({ retries: 3 } as never)).toThrow(/did you mean retry\?/);
    expect(() => createClient({ sensitiveHeader: ['x'] } as never)).toThrow(/did you mean sensitiveHeaders\?/);
    expect(() => createClient({ zzzzzz: 1 } as never)).toThrow(ConfigError);
  });

  // Issue 29: nested option objects were accepted with any key (`retry: { limit: 3 }` did nothing).
  it('checks nested option objects the same way, naming the path', () => {
    const cases: [object, string][] = [
      [{ retry: { limit: 3 } }, 'retry.limit is not an option of retry; did you mean retry.maxAttempts?'],
      [{ retry: { maxAtempts: 3 } }, 'retry.maxAtempts is not an option of retry; did you mean retry.maxAttempts?'],
      [{ rateLimit: { requestsPerSecond: 5, brust: 2 } }, 'rateLimit.brust is not an option of rateLimit; did you mean rateLimit.burst?'],
      [{ circuitBreaker: { resetTimeout: 1000 } }, 'circuitBreaker.resetTimeout is not an option of circuitBreaker; did you mean circuitBreaker.openDuration?'],
      [{ bulkhead: { concurrency: 4 } }, 'bulkhead.concurrency is not an option of bulkhead; did you mean bulkhead.maxConcurrent?'],
      [{ retryBudget: { ratoi: 0.1 } }, 'retryBudget.ratoi is not an option of retryBudget; did you mean retryBudget.ratio?'],
      [{ pauseOnRetryAfter: { maxPuase: 1000 } }, 'pauseOnRetryAfter.maxPuase is not an option of pauseOnRetryAfter; did you mean pauseOnRetryAfter.maxPause?'],
      [{ tls: { rejectUnauthorized: false } }, 'tls.rejectUnauthorized is not an option of tls; did you mean tls.insecureSkipVerify?'],
    ];
    for (const [options, message] of cases) {
      const error = (() => { try { createClient({ baseURL: 'https://h/v1', ...options } as never); } catch (e) { return e; } })();
      expect(error, message).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(message);
      expect((error as ConfigError).option).toBe(message.split(' ')[0]);
    }
    expect(() => createClient({ proxy: { uri: 'http://p:3128' } } as never)).toThrow(/^proxy must be 'env', a proxy URL or false, got an object \(keys: uri\)/);
  });

  it('accepts every documented option', async () => {
    const c = createClient({
      baseURL: 'https://h/v1', urlNormalization: 'api', timeout: 1000, deadline: 5000, retry: false, headers: {}, sensitiveHeaders: [],
      plugins: [], maxRedirects: 1, throwHttpErrors: true, maxResponseBytes: 10, rateLimit: false, circuitBreaker: false,
      retryBudget: true, bulkhead: false, pauseOnRetryAfter: true, onEvent: () => undefined, proxy: false,
    });
    await c.close();
  });
});
