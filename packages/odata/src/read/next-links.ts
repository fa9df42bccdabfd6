import { PagingError } from '../errors.js';
import { encodeOptionValue } from '../query/state.js';
import { nextLinkBase, type ReadContext } from './context.js';
import type { PageLoad } from './page-load.js';
import { UrlDigests } from './url-digests.js';

/**
 * Follows the next links of one collection read: resolves each against its page's context URL, passes
 * it through the link policy, keeps the service URL's own query options on it, and ends paging with a
 * PagingError on a link that is not a string, a link already followed (a server looping back), or more
 * pages than `maxPages`, so no record is ever delivered twice. The URLs requested are kept as fixed-size
 * digests (UrlDigests), so a read of millions of pages holds a few dozen bytes a page, not its URLs.
 */
export class NextLinks {
  private readonly seen = new UrlDigests();
  /** Pages requested so far. */
  private pages = 1;

  constructor(private readonly ctx: ReadContext, first: string) {
    this.seen.add(first);
  }

  /** The URL of the page after `load`, undefined on the last page; throws PagingError or ForeignOriginError. */
  after(load: PageLoad): string | undefined {
    const info = load.info;
    if (info?.invalidNextLink !== undefined) {
      throw new PagingError('invalid-next-link', this.pages, `the page's next link is a JSON ${info.invalidNextLink}, not a URL string`);
    }
    const link = info?.nextLink;
    if (link === undefined || info === undefined) return undefined;
    const url = this.withServiceParams(this.ctx.links.resolve('next', link, nextLinkBase(this.ctx, info.context, load.url)));
    if (this.seen.has(url)) throw new PagingError('repeated-next-link', this.pages, 'the server sent a next link to a page already read (it would loop)');
    const max = this.ctx.maxPages;
    if (max !== undefined && this.pages >= max) throw new PagingError('max-pages', this.pages, `more pages than maxPages (${max})`);
    this.seen.add(url);
    this.pages++;
    return url;
  }

  private withServiceParams(url: string): string {
    const params = this.ctx.serviceParams;
    if (params.length === 0) return url;
    const q = url.indexOf('?');
    const names = new Set(q < 0 ? [] : url.slice(q + 1).split('&').map((p) => decodeName(p.split('=')[0]!)));
    const missing = params.filter(([n]) => !names.has(n));
    if (missing.length === 0) return url;
    const extra = missing.map(([n, v]) => `${encodeOptionValue(n)}=${encodeOptionValue(v)}`).join('&');
    return `${url}${q < 0 ? '?' : '&'}${extra}`;
  }
}

function decodeName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}
