// ahead(): one item requested ahead of the one handed out, in order, failures where the caller reaches them, and
// no hold of an item once it is handed out (the sync's pages: a page kept while the next is read is copied by every
// scavenge meanwhile).
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ahead } from '../src/sync/ahead.js';

/** A source whose items are made when asked for, each answered when the test says so. */
function gatedSource(): { source: AsyncIterable<{ n: number }>; asked(): number; answer(): void; end(): void } {
  const pending: ((result: IteratorResult<{ n: number }>) => void)[] = [];
  let asked = 0;
  return {
    source: {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise<IteratorResult<{ n: number }>>((resolve) => {
          asked++;
          pending.push(resolve);
        }),
      }),
    },
    asked: () => asked,
    answer: () => pending.shift()!({ value: { n: asked }, done: false }),
    end: () => pending.shift()!({ value: undefined, done: true }),
  };
}

describe('ahead', () => {
  it('asks for the next item as soon as one is handed out, hands them out in order', async () => {
    const gate = gatedSource();
    const it = ahead(gate.source)[Symbol.asyncIterator]();
    const first = it.next();
    gate.answer();
    expect(await first).toEqual({ value: { n: 1 }, done: false });
    // The second is asked for already, before the caller asks.
    expect(gate.asked()).toBe(2);
    const second = it.next();
    gate.answer();
    expect(await second).toEqual({ value: { n: 2 }, done: false });
    const third = it.next();
    gate.end();
    expect(await third).toEqual({ value: undefined, done: true });
  });

  it('keeps no hold of the item it handed out while it waits for the next', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const gate = gatedSource();
    const it = ahead(gate.source)[Symbol.asyncIterator]();
    const handedOut = await (async (): Promise<WeakRef<object>> => {
      const first = it.next();
      gate.answer();
      return new WeakRef((await first).value as object);
    })();
    // The caller is done with the first item and asks for the second, which the source has not answered yet.
    const second = it.next();
    // A weak reference holds its target until the current job ends.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(handedOut.deref()).toBeUndefined();
    gate.answer();
    expect(await second).toEqual({ value: { n: 2 }, done: false });
  });
});
