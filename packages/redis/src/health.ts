import { EventSink, type SluiceEventListener } from '@sluice/core';
import type { Redis } from 'ioredis';
import { canSend, withTimeout } from './connection.js';
import type { RedisComponent } from './events.js';

/**
 * Whether Redis is usable for one component, with one `redis.unavailable` event when an outage starts
 * and one `redis.recovered` when it ends. While down, callers skip Redis and at most one probe (a PING)
 * runs every `probeInterval` ms, in the background, so no request waits on a dead server.
 */
export class RedisHealth {
  private downSince: number | undefined;
  private lastProbe = 0;
  private probing = false;

  constructor(
    private readonly redis: Redis,
    private readonly component: RedisComponent,
    readonly events: EventSink,
    private readonly commandTimeout: number,
    private readonly probeInterval: number,
  ) {}

  /** Whether the last command failed and no probe has succeeded since. */
  get down(): boolean {
    return this.downSince !== undefined;
  }

  /** Runs `command` with the timeout, recording the outcome; rejects when Redis cannot be used now. */
  async run<T>(command: () => Promise<T>): Promise<T> {
    if (!canSend(this.redis)) {
      const error = new Error(`Redis connection is ${this.redis.status}`);
      this.failed(error);
      throw error;
    }
    try {
      const result = await withTimeout(command(), this.commandTimeout);
      this.succeeded();
      return result;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /** While down: starts a background probe when one is due. */
  probe(): void {
    const now = Date.now();
    if (this.probing || now - this.lastProbe < this.probeInterval) return;
    this.lastProbe = now;
    if (!canSend(this.redis)) return;
    this.probing = true;
    withTimeout(this.redis.ping(), this.commandTimeout)
      .then(() => this.succeeded(), () => undefined)
      .finally(() => {
        this.probing = false;
      });
  }

  private failed(error: unknown): void {
    if (this.downSince !== undefined) return;
    this.downSince = Date.now();
    this.lastProbe = this.downSince;
    this.events.emit('redis.unavailable', { component: this.component, reason: describe(error) });
  }

  private succeeded(): void {
    if (this.downSince === undefined) return;
    const downMs = Date.now() - this.downSince;
    this.downSince = undefined;
    this.events.emit('redis.recovered', { component: this.component, downMs });
  }
}

/** A listener option as an event sink (a component is not attached to a client). */
export function sinkFor(listener: SluiceEventListener | undefined): EventSink {
  return new EventSink(listener === undefined ? [] : [listener]);
}

/** The error's message without anything that looks like URL credentials. */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\/\/[^/@\s]*@/g, '//***@').slice(0, 200);
}
