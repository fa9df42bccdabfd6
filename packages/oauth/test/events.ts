import type { TokenEvent, TokenEventType } from '@sluice/oauth';

/** Records token events and lets a test await them instead of sleeping. */
export interface EventLog {
  readonly events: (TokenEvent & { at: number })[];
  readonly onTokenEvent: (event: TokenEvent) => void;
  /** Resolves once `count` events of `type` have been seen (counting from the start). */
  waitFor(type: TokenEventType, count?: number): Promise<TokenEvent & { at: number }>;
  count(type: TokenEventType): number;
  types(): TokenEventType[];
}

export function eventLog(): EventLog {
  const events: (TokenEvent & { at: number })[] = [];
  const waiters: { type: TokenEventType; count: number; resolve: (e: TokenEvent & { at: number }) => void }[] = [];
  const matching = (type: TokenEventType) => events.filter((e) => e.type === type);
  const check = (): void => {
    for (const waiter of [...waiters]) {
      const seen = matching(waiter.type);
      if (seen.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(seen[waiter.count - 1]!);
      }
    }
  };
  return {
    events,
    onTokenEvent(event) {
      events.push({ ...event, at: performance.now() });
      check();
    },
    waitFor(type, count = 1) {
      return new Promise((resolve) => {
        waiters.push({ type, count, resolve });
        check();
      });
    },
    count: (type) => matching(type).length,
    types: () => events.map((e) => e.type),
  };
}
