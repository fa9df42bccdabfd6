import { ConfigError, redactURL, SluiceError, type EventSink } from '@sluice/core';

/** The server-given links sluice follows: next pages, `Location` headers, async status and result URLs, delta links. */
export type LinkKind = 'next' | 'location' | 'statusURL' | 'resultURL' | 'deltaLink';

declare module '@sluice/core' {
  interface SluiceEventMap {
    /**
     * A server-given link named another origin with a path under the service root (a CAP or SAP
     * service behind a proxy reporting `http://localhost:4004/...`) and was rebased onto the service's
     * origin. Reported once per client and foreign origin; URLs redacted.
     */
    'odata.link.rebased': { kind: LinkKind; from: string; to: string };
  }
}

/**
 * A server-given link (next link, `Location`, status URL, delta link) pointed to another origin, outside
 * the service root, and the caller did not allow that origin: following it could send credentials
 * elsewhere, so it is refused.
 */
export class ForeignOriginError extends SluiceError {
  /** The refused origin. */
  readonly origin: string;
  /** What the link was. */
  readonly kind: LinkKind;
  constructor(kind: LinkKind, origin: string, serviceOrigin: string) {
    super(`Refused to follow a ${kind} link to ${origin}: the service is at ${serviceOrigin} and the link is not under its root (add the origin to allowedOrigins to permit it)`);
    this.origin = origin;
    this.kind = kind;
  }
}

/** Options of the link policy (`createODataClient({ allowedOrigins, rebaseLinks })`). */
export interface LinkPolicyOptions {
  /** Origins besides the service's that links may point to, followed as given. */
  allowedOrigins?: readonly string[] | undefined;
  /**
   * Rebase a link on another origin whose path lies under the service root onto the service's origin
   * (default true); false refuses it with ForeignOriginError.
   */
  rebaseLinks?: boolean | undefined;
}

/**
 * Decides where a server-given link may lead (ARCHITECTURE: credentials stay on the origins the caller
 * configured). A link is resolved against its base; then
 * - on the service's origin, or an origin in `allowedOrigins`: followed as the server wrote it;
 * - on another origin but with a path under the service root (`/odata/v4/demo/...`): rebased onto the
 *   service's origin, same path and query, and reported once as `odata.link.rebased`;
 * - anything else (another path, or a scheme other than http/https): ForeignOriginError.
 *
 * @example
 * ```ts
 * od.links.resolve('location', 'http://localhost:4004/odata/v4/demo/Products(7)', od.serviceURL)
 * // 'https://erp.example.com/odata/v4/demo/Products(7)' when the service is https://erp.example.com/odata/v4/demo/
 * ```
 */
export class LinkPolicy {
  /** The service's origin (`https://host:port`). */
  readonly origin: string;
  private readonly rootPath: string;
  private readonly allowed: ReadonlySet<string>;
  private readonly rebase: boolean;
  private readonly reported = new Set<string>();

  constructor(serviceURL: string, options: LinkPolicyOptions, private readonly events: EventSink | undefined) {
    const root = new URL(serviceURL);
    this.origin = root.origin;
    this.rootPath = root.pathname.endsWith('/') ? root.pathname : `${root.pathname}/`;
    this.allowed = new Set((options.allowedOrigins ?? []).map((o) => {
      if (typeof o !== 'string' || !URL.canParse(o)) throw new ConfigError('allowedOrigins', `must be origins such as https://host, got ${String(o)}`);
      return new URL(o).origin;
    }));
    const rebase = options.rebaseLinks ?? true;
    if (typeof rebase !== 'boolean') throw new ConfigError('rebaseLinks', `must be a boolean, got ${String(rebase)}`);
    this.rebase = rebase;
  }

  /**
   * The absolute URL to request for `link` (absolute or relative to `base`), or ForeignOriginError.
   * Same-origin absolute links are returned exactly as written (no re-encoding).
   */
  resolve(kind: LinkKind, link: string, base: string): string {
    let url: URL;
    try {
      url = new URL(link, base);
    } catch {
      throw new ForeignOriginError(kind, `(unparseable link ${JSON.stringify(redactURL(link).slice(0, 80))})`, this.origin);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ForeignOriginError(kind, url.protocol, this.origin);
    const absolute = /^[a-z][a-z0-9+.-]*:/i.test(link);
    if (url.origin === this.origin || this.allowed.has(url.origin)) return absolute ? link : url.href;
    if (this.rebase && url.username === '' && url.password === '' && url.pathname.startsWith(this.rootPath)) {
      // Keep the path and query exactly as written: only the origin part of the link is replaced.
      const raw = absolute ? link.slice(link.indexOf('/', link.indexOf('//') + 2)).split('#')[0]! : '';
      const rest = raw !== '' && !/\/\.\.?(\/|\?|$)/.test(raw.split('?')[0]!) ? raw : url.pathname + url.search;
      const rebased = this.origin + rest;
      if (!this.reported.has(url.origin)) {
        this.reported.add(url.origin);
        this.events?.emit('odata.link.rebased', { kind, from: redactURL(url.origin + url.pathname + url.search), to: redactURL(rebased) });
      }
      return rebased;
    }
    throw new ForeignOriginError(kind, url.origin, this.origin);
  }

  /**
   * A link sluice only reports and never follows itself (the `Location` of a write or an action): resolved
   * and rebased as {@link resolve} does, and one it would refuse is given back absolute and unchanged
   * instead of failing an operation that has already succeeded.
   */
  report(kind: LinkKind, link: string, base: string): string {
    try {
      return this.resolve(kind, link, base);
    } catch (err) {
      if (!(err instanceof ForeignOriginError)) throw err;
      return URL.canParse(link, base) ? new URL(link, base).href : link;
    }
  }
}
