import { RedirectError } from './errors.js';
import type { Attempt } from './request-options.js';
import { toTarget } from './url/target.js';

/** Statuses that carry a `Location` the client follows (for safe methods only). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The attempt that follows a redirect from `attempt` to `location`: URL credentials removed, and every
 * credential header (`credentialHeaders`: the defaults, `sensitiveHeaders` and plugin-declared ones)
 * dropped when the hop leaves the origin. `first` names the request in errors (redacted).
 */
export function nextHop(first: Attempt, attempt: Attempt, location: string, credentialHeaders: readonly string[]): Attempt {
  let next: URL;
  try {
    next = new URL(location, attempt.url);
  } catch (cause) {
    throw new RedirectError(first.method, first.url, 'redirect to an invalid URL', { cause });
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new RedirectError(first.method, first.url, `redirect to unsupported scheme ${next.protocol}`);
  }
  next.username = '';
  next.password = '';
  let headers = attempt.headers;
  if (next.origin !== attempt.origin) {
    // Credentials never follow a redirect to another origin.
    headers = { ...headers };
    for (const name of credentialHeaders) delete headers[name];
  }
  return { ...attempt, url: next.href, origin: next.origin, path: toTarget(next.href, undefined).path, headers };
}
