import { describe, expect, it } from 'vitest';
import { checkOptionKeys, ConfigError } from '@sluice/core';

describe('checkOptionKeys', () => {
  it('accepts known keys', () => {
    expect(() => checkOptionKeys('', { baseURL: 'x', timeout: 1 }, ['baseURL', 'timeout'])).not.toThrow();
  });

  it('names an unknown key and the known one that differs only in case', () => {
    expect(() => checkOptionKeys('', { baseUrl: 'x' }, ['baseURL', 'timeout'])).toThrow(
      new ConfigError('baseUrl', 'is not a known option; did you mean baseURL?'),
    );
  });

  it('suggests the nearest key for a typo, with the path of the nested object', () => {
    expect(() => checkOptionKeys('retry', { maxAttempt: 3 }, ['maxAttempts', 'waitBase'])).toThrow(
      'retry.maxAttempt is not an option of retry; did you mean retry.maxAttempts?',
    );
    expect(() => checkOptionKeys('', { timout: 5 }, ['timeout', 'headers'])).toThrow('did you mean timeout?');
  });

  it('maps the names other libraries use to ours', () => {
    expect(() => checkOptionKeys('retry', { limit: 3 }, ['maxAttempts'], { limit: 'maxAttempts' })).toThrow(
      'retry.limit is not an option of retry; did you mean retry.maxAttempts?',
    );
  });

  it('lists the known keys when nothing is close', () => {
    const err = (() => { try { checkOptionKeys('', { zzzzzzzz: 1 }, ['baseURL', 'timeout']); } catch (e) { return e; } })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).option).toBe('zzzzzzzz');
    expect((err as Error).message).toBe('zzzzzzzz is not a known option; known options: baseURL, timeout');
  });
});
