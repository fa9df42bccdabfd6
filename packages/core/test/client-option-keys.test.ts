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

  it('accepts every documented option', async () => {
    const c = createClient({
      baseURL: 'https://h/v1', urlNormalization: 'api', timeout: 1000, deadline: 5000, retry: false, headers: {}, sensitiveHeaders: [],
      plugins: [], maxRedirects: 1, throwHttpErrors: true, maxResponseBytes: 10, rateLimit: false, circuitBreaker: false,
      retryBudget: true, bulkhead: false, pauseOnRetryAfter: true, onEvent: () => undefined, proxy: false,
    });
    await c.close();
  });
});
