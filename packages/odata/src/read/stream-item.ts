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
