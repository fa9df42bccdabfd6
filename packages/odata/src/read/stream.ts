import { AbortError, backoffDelay, sleep } from '@sluice/core';
import { ODataVersionError, PageError } from '../errors.js';
import type { ReadOptions } from '../query/state.js';
import { isResumable, type ReadContext } from './context.js';
import { NextLinks } from './next-links.js';
import { PageLoad } from './page-load.js';
import { withServiceParams } from './service-params.js';
import type { PageBatch, StreamItem } from './stream-item.js';

/** Options of `query.stream()`, `list()` and `pages()` (besides `signal`, `headers`, `timeout`). */
export interface StreamOptions extends ReadOptions {
  /** Fetch the next page while the caller works on the current one (default true). */
  prefetch?: boolean | undefined;
  /** Ask the service for at most this many records per page (v4 `Prefer: odata.maxpagesize`). */
  maxPageSize?: number | undefined;
  /**
   * How many times a page whose body broke (reset, truncated, timed out while reading) is resumed
   * (default: the client's `pageRetries`, 3). Error statuses are retried by the core, not here.
   */
  pageRetries?: number | undefined;
  /** End with PagingError after this many pages (default: the client's `maxPages`, unlimited). */
  maxPages?: number | undefined;
  /** Largest record accepted, in bytes (default: the client's `maxRecordBytes`); larger ends the read with ResponseSizeError. */
  maxRecordBytes?: number | undefined;
  /** Largest page body accepted, in bytes (default: the client's `maxPageBytes`). */
  maxPageBytes?: number | undefined;
}

const DONE: IteratorResult<never> = { value: undefined, done: true };

/** Where a stream starts: resolved on the first `next()` (it may need to detect the version first). */
export type StreamSource = (signal: AbortSignal) => Promise<{ ctx: ReadContext; url: string }>;

/**
 * Streams the records of a collection, following next links (SPEC 1.5, 4.5): each record as soon as its
 * bytes are in (or, with `batches`, the records of each run of a chunk as one array: `{ value: T[] }`), the next page requested as soon as the current page's link is known and held, as bytes, until
 * the caller reaches it (so at most two pages in memory, one of them unparsed), failed pages retried in place without losing or
 * repeating records, and every request cancelled when the caller stops. A hand-written iterator rather
 * than an async generator: a record that is already parsed costs one resolved promise, nothing more.
 */
export class CollectionStream implements AsyncIterableIterator<StreamItem<unknown>> {
  private ctx!: ReadContext;
  private links!: NextLinks;
  private current: PageLoad | undefined;
  private ahead: PageLoad | undefined;
  private attempt = 0;
  private retrying = false;
  private finished = false;
  private readonly controller = new AbortController();
  private readonly onAbort = (): void => this.controller.abort(this.options.signal?.reason);
  /** The page whose end was handed out last (`pages` mode): its end is handed out once. */
  private ended: PageLoad | undefined;

  /**
   * @param batches Hand out arrays of records (`StreamItem<unknown[]>`, cast to the item type) rather than
   * one record per item; `'pages'`: arrays too, and a `{ page }` item (a {@link PageBatch}) after each page's
   * last records. Errors are the same items in every mode.
   */
  constructor(private readonly source: StreamSource, private readonly options: StreamOptions = {}, private readonly batches: boolean | 'pages' = false) {
    const outer = options.signal;
    if (outer?.aborted) this.onAbort();
    else outer?.addEventListener('abort', this.onAbort, { once: true });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<StreamItem<unknown>>> {
    const item = this.take(this.current);
    if (item !== undefined) return Promise.resolve({ value: item, done: false });
    return this.advance();
  }

  /** The next item of `load` in this stream's mode: a record, an array of records, or a record error. */
  private take(load: PageLoad | undefined): StreamItem<unknown> | undefined {
    if (load === undefined) return undefined;
    return this.batches === false ? load.take() : load.takeBatch();
  }

  /** Breaking out of the loop cancels the page being read and the one being prefetched. */
  return(): Promise<IteratorResult<StreamItem<unknown>>> {
    this.finish();
    return Promise.resolve(DONE);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.controller.abort();
    this.current = undefined;
    this.ahead = undefined;
    this.ended = undefined;
  }

  /** Ends the stream after `item` (a terminal error). */
  private last(item: StreamItem<unknown>): IteratorResult<StreamItem<unknown>> {
    this.finish();
    return { value: item, done: false };
  }

  /** A page's delta link resolved against the page's URL with the service params kept; as sent when the link policy refuses it. */
  private resolvedDelta(link: string, pageURL: string): string {
    try {
      return withServiceParams(this.ctx.links.resolve('deltaLink', link, pageURL), this.ctx.serviceParams);
    } catch {
      return link;
    }
  }

  private start(url: string, skip: number, held = false): PageLoad {
    const load = new PageLoad(this.ctx, url, skip, this.controller.signal, undefined, held);
    load.onDone = () => { if (load === this.current) this.startAhead(); };
    return load;
  }

  private following(from: PageLoad, held = false): PageLoad | undefined {
    let url: string | undefined;
    try {
      url = this.links.after(from);
    } catch (error) {
      return PageLoad.failed(this.ctx, from.info?.nextLink ?? from.url, error);
    }
    return url === undefined ? undefined : this.start(url, 0, held);
  }

  // Prefetch: the page after `current` starts as soon as current's link is known, never further ahead.
  private startAhead(): void {
    const current = this.current;
    if (this.options.prefetch === false || this.ahead !== undefined || this.finished || !current?.done || current.error !== undefined) return;
    // Its body is read at once but parsed only when the caller reaches it (release below).
    this.ahead = this.following(current, true);
  }

  private async advance(): Promise<IteratorResult<StreamItem<unknown>>> {
    if (this.finished) return DONE;
    const signal = this.controller.signal;
    if (this.current === undefined) {
      try {
        const { ctx, url } = await this.source(signal);
        this.ctx = ctx;
        this.links = new NextLinks(ctx, url);
        if (this.finished) return DONE;
        this.current = this.start(url, 0);
      } catch (error) {
        return this.last({ error: error as Error });
      }
    }
    for (;;) {
      let current: PageLoad = this.current!;
      if (this.retrying) {
        this.retrying = false;
        try {
          await sleep(backoffDelay(this.attempt, this.ctx.retry), signal);
        } catch (cause) {
          return this.last({ error: new AbortError('GET', current.url, { cause }) });
        }
        if (this.finished) return DONE;
        // Records the failed attempt delivered are skipped on the retry of the same page.
        current = this.current = this.start(current.url, Math.max(current.skip, current.seen));
      }
      const item = this.take(current);
      if (item !== undefined) return { value: item, done: false };
      if (!current.done) {
        await current.changed();
        if (this.finished) return DONE;
        continue;
      }
      if (current.error !== undefined) {
        // A refused or looping next link ends the stream with its own error: there is no page to retry.
        if (current.refused || current.error instanceof ODataVersionError) return this.last({ error: current.error as Error });
        const outer = this.options.signal;
        const error = outer?.aborted ? new AbortError('GET', current.url, { cause: outer.reason }) : current.error;
        const retry = current.bodyStarted && isResumable(error) && this.attempt < this.ctx.pageRetries;
        this.attempt++;
        const failure = { error: new PageError(current.url, this.attempt, retry, error) };
        if (!retry) return this.last(failure);
        this.retrying = true;
        return { value: failure, done: false };
      }
      this.attempt = 0;
      if (this.batches === 'pages' && this.ended !== current) {
        this.ended = current;
        const info = current.info;
        // The links the read follows (resolved, service params kept), so a read resumed from one asks what this one did.
        const deltaLink = info?.deltaLink === undefined ? undefined : this.resolvedDelta(info.deltaLink, current.url);
        const end: PageBatch<unknown> = { page: { url: current.url, nextLink: this.links.peek(current), count: info?.count, ...(deltaLink === undefined ? {} : { deltaLink }) } };
        return { value: end as StreamItem<unknown>, done: false };
      }
      const next = this.ahead ?? this.following(current);
      this.ahead = undefined;
      if (next === undefined) {
        this.finish();
        return DONE;
      }
      this.current = next;
      next.release();
      this.startAhead();
    }
  }
}

/**
 * Reads the pages of a collection one at a time (no prefetch: the paginator holds exactly one page),
 * resuming a page whose body broke; throws PageError when a page fails for good, PagingError or
 * ForeignOriginError when its next link cannot be followed.
 */
export async function* pageCollection(ctx: ReadContext, firstURL: string, signal: AbortSignal | undefined): AsyncGenerator<PageLoad> {
  const aborted = signal ?? new AbortController().signal;
  const links = new NextLinks(ctx, firstURL);
  let url: string | undefined = firstURL;
  let attempt = 0;
  while (url !== undefined) {
    const load = new PageLoad(ctx, url, 0, aborted);
    await load.finished;
    if (load.error !== undefined) {
      const retry = load.bodyStarted && isResumable(load.error) && !aborted.aborted && attempt < ctx.pageRetries;
      attempt++;
      if (load.error instanceof ODataVersionError) throw load.error;
      if (!retry) throw new PageError(url, attempt, false, load.error);
      await sleep(backoffDelay(attempt, ctx.retry), aborted);
      continue;
    }
    attempt = 0;
    yield load;
    url = links.after(load);
  }
}
