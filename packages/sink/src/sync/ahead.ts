// One page ahead: the next page of a read is requested while the caller writes the current one into the
// database, so the service and the database work at the same time. At most two pages are held.

/** Iterates `source`, asking it for the next item as soon as one is handed out. */
export async function* ahead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let next = iterator.next();
  let done = false;
  // The item handed out last: let go before waiting for the next, so that the wait does not keep it alive.
  let item: IteratorResult<T> | undefined;
  try {
    for (;;) {
      item = undefined;
      item = await next;
      if (item.done) {
        done = true;
        return;
      }
      next = iterator.next();
      // Its failure is reported when the caller reaches it, not as an unhandled rejection before.
      next.catch(() => undefined);
      yield item.value;
    }
  } finally {
    // The caller stopped early (or a read failed): the source stops once its step under way has settled.
    if (!done) await next.then(() => iterator.return?.(), () => undefined);
  }
}

