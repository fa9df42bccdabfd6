import type { TransportBody } from './transport/types.js';

/**
 * Reads the first `limit` bytes of `source` (fewer when it ends sooner) and gives back a body that yields
 * them again before the rest, so a plugin can look at the start of an answer without using it up and
 * without holding more than `limit` bytes. The bytes may run past `limit` by the rest of the last chunk.
 */
export async function peekBody(source: TransportBody, limit: number): Promise<{ bytes: Uint8Array; body: TransportBody }> {
  const iterator = source[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  let size = 0;
  let ended = false;
  while (size < limit) {
    const next = await iterator.next();
    if (next.done === true) {
      ended = true;
      break;
    }
    head.push(next.value);
    size += next.value.byteLength;
  }
  const bytes = head.length === 1 ? head[0]! : Buffer.concat(head, size);
  async function* replay(): AsyncGenerator<Uint8Array> {
    yield* head.splice(0);
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      yield next.value;
    }
  }
  const body: TransportBody = {
    [Symbol.asyncIterator]: replay,
    cancel: () => source.cancel(),
  };
  return { bytes, body };
}
