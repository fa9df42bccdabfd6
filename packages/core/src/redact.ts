/** Query parameter names whose values are never shown in errors or logs. */
const SENSITIVE_PARAMS = new Set([
  'access_token', 'refresh_token', 'id_token', 'token', 'code', 'client_secret', 'password',
  'sig', 'signature', 'api_key', 'apikey', 'key', 'code_verifier', 'assertion', 'client_assertion',
]);

/** Header names whose values are credentials: dropped across origins and never shown. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'authorization', 'proxy-authorization', 'cookie', 'x-csrf-token',
];

/**
 * Returns the URL with user-info removed and the values of credential-like query parameters
 * (`access_token`, `code`, `client_secret`, ...) replaced by `[REDACTED]`, so that it can be shown in
 * an error or a log line.
 *
 * @example
 * ```ts
 * redactURL('https://u:p@h/cb?code=abc&x=1') // 'https://h/cb?code=[REDACTED]&x=1'
 * ```
 */
export function redactURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url.replace(/\/\/[^/@?#]*@/, '//');
  }
  parsed.username = '';
  parsed.password = '';
  if (parsed.search) {
    const parts = parsed.search.slice(1).split('&').map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      let name = pair.slice(0, eq);
      try { name = decodeURIComponent(name); } catch { /* keep raw */ }
      return SENSITIVE_PARAMS.has(name.toLowerCase()) ? `${pair.slice(0, eq)}=[REDACTED]` : pair;
    });
    parsed.search = parts.join('&');
  }
  return parsed.href.replace(/%5BREDACTED%5D/g, '[REDACTED]');
}
