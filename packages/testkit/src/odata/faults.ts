// Fault modes of the OData test server and the run-time state that counts how often each has fired.

/**
 * Faults the OData test server injects into collection pages. Page numbers count from 0 and are
 * identified by `$skiptoken / pageSize`, so a retried page is the same page.
 *
 * @example
 * ```ts
 * srv.setFaults({ failPage: { page: 2, status: 503, times: 1, retryAfter: 0 } });
 * ```
 */
export interface ODataFaults {
  /** Delay in ms before answering each collection page. */
  latencyMs?: number;
  /** Delay in ms before the response headers of every collection page. */
  slowFirstByteMs?: number;
  /** Write each collection page's body in pieces of `chunkBytes` with `delayMs` between them. */
  chunked?: { chunkBytes: number; delayMs: number };
  /** Answer page `page` with an error status (default 503) `times` times (default 1). */
  failPage?: { page: number; status?: number; times?: number; retryAfter?: number | string; xml?: boolean };
  /** Send the headers and part of page `page`'s body, then destroy the socket, `times` times. */
  resetPage?: { page: number; times?: number };
  /** Send only the first half of page `page`'s JSON and end the response normally, `times` times. */
  truncatePage?: { page: number; times?: number };
  /** Origin that next links point to instead of the server's own, e.g. `http://127.0.0.1:1`. */
  foreignNextLink?: string;
  /** Answer collections with `Content-Type: text/html`. */
  wrongContentType?: boolean;
}

type Counted = 'failPage' | 'resetPage' | 'truncatePage';

/** The current faults and how many times each counted fault has fired since they were set. */
export class FaultState {
  private faults: ODataFaults = {};
  private fired: Record<Counted, number> = { failPage: 0, resetPage: 0, truncatePage: 0 };

  constructor(faults: ODataFaults = {}) {
    this.set(faults);
  }

  /** Replaces all faults and resets their counters. */
  set(faults: ODataFaults): void {
    this.faults = { ...faults };
    this.fired = { failPage: 0, resetPage: 0, truncatePage: 0 };
  }

  /** The faults in force. */
  get current(): Readonly<ODataFaults> {
    return this.faults;
  }

  /** Whether fault `kind` applies to `page` now; counts it as fired when it does. */
  take(kind: Counted, page: number): boolean {
    const fault = this.faults[kind];
    if (!fault || fault.page !== page || this.fired[kind] >= (fault.times ?? 1)) return false;
    this.fired[kind]++;
    return true;
  }
}
