import { PagingError } from '../errors.js';
import { nextLinkBase, type ReadContext } from './context.js';
import type { PageLoad } from './page-load.js';
import { withServiceParams } from './service-params.js';
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
    const url = this.resolve(load, link);
    if (this.seen.has(url)) throw new PagingError('repeated-next-link', this.pages, 'the server sent a next link to a page already read (it would loop)');
    const max = this.ctx.maxPages;
    if (max !== undefined && this.pages >= max) throw new PagingError('max-pages', this.pages, `more pages than maxPages (${max})`);
    this.seen.add(url);
    this.pages++;
    return url;
  }

  /**
   * The URL the stream follows for `load`'s next link (resolved, service params kept), without counting it as
   * followed; the raw link when the link policy refuses it (following it then ends the read with that error).
   */
  peek(load: PageLoad): string | undefined {
    const link = load.info?.nextLink;
    if (link === undefined || typeof link !== 'string') return undefined;
    try {
      return this.resolve(load, link);
    } catch {
      return link;
    }
  }

  private resolve(load: PageLoad, link: string): string {
    return withServiceParams(this.ctx.links.resolve('next', link, nextLinkBase(this.ctx, load.info?.context, load.url)), this.ctx.serviceParams);
  }
}
