import type { Transport, TransportResponse } from '@sluice/core';

/**
 * A transport that answers every request at once with `body` from memory, so only the client's own work is
 * timed. Like the undici transport it offers a buffered `readAll`, the path `json()` and `getJSON` take.
 */
export class MemoryTransport implements Transport {
  constructor(private readonly body: Uint8Array) {}

  async send(): Promise<TransportResponse> {
    let sent = false;
    const body = this.body;
    return {
      status: 200,
      headers: { 'content-type': 'application/json', 'content-length': String(body.byteLength) },
      body: {
        [Symbol.asyncIterator]: () => ({
          next: async () => (sent ? { done: true, value: undefined } : ((sent = true), { done: false, value: body })),
        }),
        readAll: async (limit: number) => (body.byteLength > limit ? null : body),
        cancel: async () => undefined,
      },
    };
  }

  async close(): Promise<void> {}
}
