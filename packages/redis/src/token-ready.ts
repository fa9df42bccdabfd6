import type { Redis } from 'ioredis';

/** A wait armed before a check, so a message published between the check and the wait is not lost. */
export interface ArmedWait {
  /** Resolves on a message for the key or after `ms`, whichever comes first. */
  until(ms: number): Promise<void>;
  cancel(): void;
}

/**
 * Wakes the instances waiting for another instance's token: the writer publishes the cache key on one
 * channel per namespace, and a subscriber connection (made on the first wait) wakes the local waiters of
 * that key. Waiters also wake on their poll interval, so a lost message or a subscriber still connecting
 * costs at most one interval.
 */
export class TokenReadySignal {
  private subscriber: Redis | undefined;
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(private readonly redis: Redis, readonly channel: string) {}

  arm(key: string): ArmedWait {
    this.subscribe();
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => {
      wake = resolve;
    });
    let set = this.waiters.get(key);
    if (set === undefined) this.waiters.set(key, (set = new Set()));
    const waiters = set;
    waiters.add(wake);
    const cancel = (): void => {
      waiters.delete(wake);
      if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
    };
    return {
      cancel,
      until: async (ms) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([woken, new Promise<void>((resolve) => {
          timer = setTimeout(resolve, ms);
        })]);
        clearTimeout(timer);
        cancel();
      },
    };
  }

  close(): void {
    for (const set of this.waiters.values()) for (const wake of set) wake();
    this.waiters.clear();
    this.subscriber?.disconnect();
    this.subscriber = undefined;
  }

  private subscribe(): void {
    if (this.subscriber !== undefined) return;
    const subscriber = this.redis.duplicate();
    this.subscriber = subscriber;
    // Outages show in the command connection's health; polling covers the subscriber meanwhile.
    subscriber.on('error', () => undefined);
    subscriber.on('message', (_channel: string, key: string) => {
      const set = this.waiters.get(key);
      if (set !== undefined) for (const wake of set) wake();
    });
    subscriber.subscribe(this.channel).catch(() => undefined);
  }
}
