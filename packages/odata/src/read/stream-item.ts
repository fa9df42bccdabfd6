/**
 * One item of `query.stream()`: a record (`value`) or an error (`error`) that did not stop the stream,
 * such as a record that failed to decode or a page that failed and is tried again. A terminal failure is
 * the last item.
 *
 * @example
 * ```ts
 * for await (const item of od.from<Product>('Products').stream()) {
 *   if ('error' in item) console.warn(item.error.message)
 *   else console.log(item.value.Name)
 * }
 * ```
 */
export type StreamItem<T> = { value: T; error?: undefined } | { error: Error; value?: undefined };

/**
 * One page of `query.pages()`: its records, the errors of records that failed to decode, the total
 * count when asked for, and the next link (undefined on the last page).
 */
export interface Page<T> {
  /** The records of this page, in order. */
  value: T[];
  /** Records of this page that failed to decode (the others are in `value`). */
  errors: Error[];
  /** The total count, when `.count()` was asked and the service sent it. */
  count: number | undefined;
  /** The URL this page was read from. */
  url: string;
  /** The server's link to the next page, exactly as sent; undefined on the last page. */
  nextLink: string | undefined;
}

/** The end of a page in `query.pageBatches()`: every record of the page was handed out before it. */
export interface PageEnd {
  /** The URL the page was read from. */
  url: string;
  /**
   * The next page's URL as the read follows it (resolved, the service URL's own query options such as
   * `sap-client` kept); undefined on the last page.
   */
  nextLink: string | undefined;
  /** The total count, when `.count()` was asked and the service sent it. */
  count: number | undefined;
  /**
   * The delta link (resolved against the page's URL, the service URL's own query options kept), on the last page
   * of a read that asked to track changes; undefined otherwise.
   */
  deltaLink?: string | undefined;
}

/**
 * One item of `query.pageBatches()`: records of a page (`value`, the records of one run of a body chunk), an
 * error that did not stop the read (`error`, as in `stream()`: a record that failed to decode, a page tried
 * again), or the end of a page (`page`), which follows the page's last records and comes before the next page's.
 */
export type PageBatch<T> =
  | { value: T[]; error?: undefined; page?: undefined }
  | { error: Error; value?: undefined; page?: undefined }
  | { page: PageEnd; value?: undefined; error?: undefined };
