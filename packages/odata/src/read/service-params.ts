import { encodeOptionValue } from '../query/state.js';

/**
 * `url` with the service URL's own query options (such as SAP's `sap-client=100`) that it lacks appended;
 * one it already carries is left as it is. A service's next and delta links often omit them, and a request
 * without them can read other data (on SAP, another client's), so every link sluice follows, hands out or
 * keeps for resuming goes through this.
 */
export function withServiceParams(url: string, params: readonly (readonly [string, string])[]): string {
  if (params.length === 0) return url;
  const q = url.indexOf('?');
  const names = new Set(q < 0 ? [] : url.slice(q + 1).split('&').map((p) => decodeName(p.split('=')[0]!)));
  const missing = params.filter(([n]) => !names.has(n));
  if (missing.length === 0) return url;
  const extra = missing.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
  return `${url}${q < 0 ? '?' : '&'}${extra}`;
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
