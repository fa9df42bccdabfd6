import { checkDeadline } from './deadline.js';
import { ConfigError } from './errors.js';
import { checkOptionKeys } from './option-keys.js';
import type { ClientOptions, ResolvedOptions } from './types.js';
import { CREDENTIAL_HEADERS } from './redact.js';
import { resolveResilience } from './resilience/options.js';
import { DEFAULT_RETRY, type RetryOptions } from './retry.js';
import { URLNormalization } from './url/resolve.js';

/** The password of a proxy URL option (`http://user:password@proxy:3128`), to scrub where it might be echoed. */
export function proxyPassword(proxy: unknown): string | undefined {
  const text = typeof proxy === 'string' ? proxy : proxy instanceof URL ? proxy.href : undefined;
  if (text === undefined || !URL.canParse(text)) return undefined;
  const { password } = new URL(text);
  if (password === '') return undefined;
  try {
    return decodeURIComponent(password);
  } catch {
    return password;
  }
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

function isPositiveInt(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

function isDuration(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0;
}

/**
 * Validates headers given in any {@link HeadersInput} shape into one record with lower-case names; values
 * may not contain CR, LF or NUL. A name given twice in pairs gets its values joined with `, `.
 */
export function checkHeaders(option: string, headers: unknown): Record<string, string> {
  if (headers === undefined) return {};
  if (headers === null || typeof headers !== 'object') throw new ConfigError(option, 'must be a Headers instance, an array of [name, value] pairs or an object of header names to strings');
  const out: Record<string, string> = {};
  const add = (name: unknown, value: unknown, pairs: boolean): void => {
    if (value === undefined && !pairs) return;
    if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new ConfigError(`${option}.${String(name)}`, 'is not a valid header name');
    if (typeof value !== 'string') throw new ConfigError(`${option}.${name}`, `must be a string, got ${typeof value}`);
    if (/[\r\n\0]/.test(value)) throw new ConfigError(`${option}.${name}`, 'must not contain CR, LF or NUL');
    const key = name.toLowerCase();
    out[key] = pairs && out[key] !== undefined ? `${out[key]}, ${value}` : value;
  };
  if (Symbol.iterator in headers) {
    let i = 0;
    for (const pair of headers as Iterable<unknown>) {
      if (!Array.isArray(pair) || pair.length !== 2) throw new ConfigError(`${option}[${i}]`, 'must be a [name, value] pair');
      add(pair[0], pair[1], true);
      i++;
    }
    return out;
  }
  for (const [name, value] of Object.entries(headers)) add(name, value, false);
  return out;
}

/** Every key of {@link RetryOptions}. */
const RETRY_KEYS: readonly (keyof RetryOptions)[] = ['maxAttempts', 'waitBase', 'maxWait', 'retryableStatus', 'methods', 'retryOnNetworkError'];
/** Names other HTTP clients use for the same retry settings. */
const RETRY_HINTS: Readonly<Record<string, keyof RetryOptions>> = {
  limit: 'maxAttempts', retries: 'maxAttempts', attempts: 'maxAttempts', maxRetries: 'maxAttempts', statusCodes: 'retryableStatus',
  statuses: 'retryableStatus', delay: 'waitBase', minTimeout: 'waitBase', maxTimeout: 'maxWait', backoffLimit: 'maxWait',
};

/** Validates retry options (unknown keys refused with the nearest one), merged over `base`. */
export function checkRetry(option: string, retry: unknown, base: RetryOptions): RetryOptions {
  if (retry === undefined) return base;
  if (retry === false) return { ...base, maxAttempts: 1 };
  if (retry === null || typeof retry !== 'object') throw new ConfigError(option, 'must be an object or false');
  checkOptionKeys(option, retry, RETRY_KEYS, RETRY_HINTS);
  const merged = { ...base, ...(retry as Partial<RetryOptions>) };
  if (!isPositiveInt(merged.maxAttempts, 1)) throw new ConfigError(`${option}.maxAttempts`, `must be an integer >= 1, got ${String(merged.maxAttempts)}`);
  if (!isDuration(merged.waitBase) || merged.waitBase <= 0) throw new ConfigError(`${option}.waitBase`, `must be a number of ms > 0, got ${String(merged.waitBase)}`);
  if (!isDuration(merged.maxWait) || merged.maxWait < merged.waitBase) throw new ConfigError(`${option}.maxWait`, `must be a number of ms >= waitBase, got ${String(merged.maxWait)}`);
  if (!Array.isArray(merged.retryableStatus) || !merged.retryableStatus.every((s) => isPositiveInt(s, 100) && s <= 599)) {
    throw new ConfigError(`${option}.retryableStatus`, 'must be an array of HTTP status codes (100-599)');
  }
  if (!Array.isArray(merged.methods) || !merged.methods.every((m) => typeof m === 'string')) {
    throw new ConfigError(`${option}.methods`, 'must be an array of method names');
  }
  if (typeof merged.retryOnNetworkError !== 'boolean') throw new ConfigError(`${option}.retryOnNetworkError`, 'must be a boolean');
  return { ...merged, methods: merged.methods.map((m) => m.toUpperCase()) };
}

/** Validates a timeout option: ms > 0, or false. */
export function checkTimeout(option: string, timeout: unknown, fallback: number | false): number | false {
  if (timeout === undefined) return fallback;
  if (timeout === false) return false;
  if (!isDuration(timeout) || timeout <= 0) throw new ConfigError(option, `must be a number of ms > 0 or false, got ${String(timeout)}`);
  return timeout;
}

function checkSensitiveHeaders(names: unknown): readonly string[] {
  if (names === undefined) return CREDENTIAL_HEADERS;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string' && HEADER_NAME.test(n))) {
    throw new ConfigError('sensitiveHeaders', 'must be an array of header names');
  }
  return [...new Set([...CREDENTIAL_HEADERS, ...names.map((n: string) => n.toLowerCase())])];
}

/** Validates a base URL: absolute http(s), no user-info. */
export function checkBaseURL(baseURL: unknown): string | undefined {
  if (baseURL === undefined) return undefined;
  if (typeof baseURL !== 'string' || !URL.canParse(baseURL)) throw new ConfigError('baseURL', 'must be an absolute http(s) URL');
  const parsed = new URL(baseURL);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ConfigError('baseURL', `must use http or https, got ${parsed.protocol}`);
  if (parsed.username || parsed.password) throw new ConfigError('baseURL', 'must not contain credentials: send them in a header or with a plugin');
  return baseURL;
}

/**
 * Every key {@link ClientOptions} accepts: the one list of known options (a new option fails to compile until
 * it is added here). Anything else is refused by {@link checkOptionKeys} with the nearest valid key.
 */
const CLIENT_OPTION_KEYS = Object.keys({
  baseURL: true, urlNormalization: true, timeout: true, deadline: true, retry: true, headers: true, sensitiveHeaders: true,
  plugins: true, transport: true, proxy: true, tls: true, maxRedirects: true, throwHttpErrors: true, maxResponseBytes: true,
  rateLimit: true, circuitBreaker: true, retryBudget: true, bulkhead: true, pauseOnRetryAfter: true, onEvent: true,
} satisfies Record<keyof ClientOptions, true>);

/** Names other HTTP clients use for our options. */
const CLIENT_OPTION_HINTS: Readonly<Record<string, string>> = {
  prefixUrl: 'baseURL', baseUri: 'baseURL', url: 'baseURL', retries: 'retry', maxRetries: 'retry', hooks: 'plugins',
  dispatcher: 'transport', agent: 'transport', httpsAgent: 'transport', maxContentLength: 'maxResponseBytes',
  followRedirect: 'maxRedirects', totalTimeout: 'deadline',
  httpProxy: 'proxy', httpsProxy: 'proxy', proxyUrl: 'proxy', ca: 'tls', cert: 'tls', key: 'tls', pfx: 'tls', https: 'tls',
  rejectUnauthorized: 'tls (insecureSkipVerify)',
};

/** `maxRedirects` of the client or of one request: an integer >= 0, else {@link ConfigError}. */
export function checkMaxRedirects(option: string, maxRedirects: unknown): number {
  if (!isPositiveInt(maxRedirects, 0)) throw new ConfigError(option, `must be an integer >= 0, got ${String(maxRedirects)}`);
  return maxRedirects;
}

/** Validates every client option and fills in defaults. */
export function resolveOptions(options: ClientOptions): ResolvedOptions {
  if (options === null || typeof options !== 'object') throw new ConfigError('options', 'must be an object');
  checkOptionKeys('', options, CLIENT_OPTION_KEYS, CLIENT_OPTION_HINTS);
  const modes = Object.values(URLNormalization) as string[];
  const urlNormalization = options.urlNormalization ?? URLNormalization.Auto;
  if (!modes.includes(urlNormalization)) throw new ConfigError('urlNormalization', `must be one of ${modes.join(', ')}, got ${String(urlNormalization)}`);
  const plugins = options.plugins ?? [];
  if (!Array.isArray(plugins)) throw new ConfigError('plugins', 'must be an array');
  const names = new Set<string>();
  plugins.forEach((plugin, i) => {
    if (!plugin || typeof plugin.name !== 'string' || plugin.name === '') throw new ConfigError(`plugins[${i}]`, 'must be an object with a name');
    if (names.has(plugin.name)) throw new ConfigError(`plugins[${i}]`, `repeats the name ${plugin.name}`);
    names.add(plugin.name);
  });
  if (options.transport !== undefined && (typeof options.transport.send !== 'function' || typeof options.transport.close !== 'function')) {
    throw new ConfigError('transport', 'must implement send() and close()');
  }
  if (options.transport !== undefined && (options.proxy !== undefined || options.tls !== undefined)) {
    throw new ConfigError(options.proxy !== undefined ? 'proxy' : 'tls', 'applies to the default transport only: give it to the transport you pass (new UndiciTransport({ proxy, tls }))');
  }
  const maxRedirects = checkMaxRedirects('maxRedirects', options.maxRedirects ?? 10);
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024 * 1024;
  if (!isPositiveInt(maxResponseBytes, 1)) throw new ConfigError('maxResponseBytes', `must be an integer >= 1, got ${String(maxResponseBytes)}`);
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') throw new ConfigError('onEvent', 'must be a function');
  const throwHttpErrors = options.throwHttpErrors ?? true;
  if (typeof throwHttpErrors !== 'boolean') throw new ConfigError('throwHttpErrors', 'must be a boolean');
  return {
    baseURL: checkBaseURL(options.baseURL),
    urlNormalization,
    timeout: checkTimeout('timeout', options.timeout, 30_000),
    deadline: (checkDeadline('deadline', options.deadline, false) as number | false | undefined) ?? false,
    retry: checkRetry('retry', options.retry, { ...DEFAULT_RETRY, retryableStatus: [...DEFAULT_RETRY.retryableStatus], methods: [...DEFAULT_RETRY.methods] }),
    headers: checkHeaders('headers', options.headers),
    sensitiveHeaders: checkSensitiveHeaders(options.sensitiveHeaders),
    plugins,
    maxRedirects,
    throwHttpErrors,
    maxResponseBytes,
    resilience: resolveResilience(options),
    onEvent: options.onEvent,
  };
}
