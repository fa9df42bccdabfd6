import type { DeltaStore } from '../src/index.js';

/** A DeltaStore in memory, holding one link (`link`, for the test to read or set). */
export function memoryStore(link?: string): DeltaStore & { link: string | undefined } {
  const store = {
    link,
    load: () => Promise.resolve(store.link),
    save: (_key: string, saved: string) => { store.link = saved; return Promise.resolve(); },
    clear: () => { store.link = undefined; return Promise.resolve(); },
  };
  return store;
}
