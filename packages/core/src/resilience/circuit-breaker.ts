import { CircuitOpenError } from '../errors.js';
import type { CircuitState, ResolvedResilience } from './options.js';

// The option's own types live with the options (no import cycle); re-exported where they always were.
export type { CircuitState, CircuitStateChange } from './options.js';
import { SlidingCounter } from './sliding-counter.js';

/** The outcome of one attempt as the breaker judges it. */
export type AttemptOutcome = 'success' | 'failure' | 'neutral';

/** A circuit breaker's resolved settings (the `circuitBreaker` option with its defaults filled in). */
export type CircuitBreakerSettings = NonNullable<ResolvedResilience['circuitBreaker']>;

/**
 * The bookkeeping of one origin's circuit, held by {@link CircuitBreakers}. Exposed only through
 * {@link CircuitTicket}; read {@link CircuitBreakers.state} rather than its fields.
 */
export class OriginCircuit {
  state: CircuitState = 'closed';
  consecutive = 0;
  probes = 0;
  openUntil = 0;
  reason = '';
  // Bumped on each state change so that late outcomes from an older state are ignored.
  generation = 0;
  // first: attempts, second: failures.
  readonly window: SlidingCounter;
  constructor(readonly origin: string, settings: CircuitBreakerSettings, now: () => number) {
    this.window = new SlidingCounter(settings.window, 10, now);
  }
}

/** A pass through the breaker: hand it back with the outcome through {@link CircuitBreakers.record}. */
export interface CircuitTicket {
  readonly circuit: OriginCircuit;
  readonly generation: number;
  readonly probe: boolean;
}

/**
 * One circuit breaker per origin, created on first use. `check()` rejects early (before any queueing);
 * `acquire()` takes the pass just before sending; `record()` feeds the outcome back. Time is only read,
 * never scheduled: an open circuit turns half-open on the first attempt after `openDuration`, so the
 * breaker holds no timers.
 *
 * @example
 * ```ts
 * const ticket = breakers.acquire(origin)          // throws CircuitOpenError while open
 * breakers.record(ticket, status >= 500 ? 'failure' : 'success')
 * ```
 */
export class CircuitBreakers {
  private readonly circuits = new Map<string, OriginCircuit>();

  constructor(private readonly settings: CircuitBreakerSettings, private readonly now: () => number = () => performance.now()) {}

  /** The state of `origin`'s circuit (`closed` for an origin never seen). */
  state(origin: string): CircuitState {
    const circuit = this.circuits.get(origin);
    if (circuit === undefined) return 'closed';
    if (circuit.state === 'open' && this.now() >= circuit.openUntil) return 'half-open';
    return circuit.state;
  }

  /** Throws {@link CircuitOpenError} if an attempt to `origin` would be rejected now; takes nothing. */
  check(origin: string): void {
    const circuit = this.circuits.get(origin);
    if (circuit === undefined || circuit.state === 'closed') return;
    this.admit(circuit, false);
  }

  /** Lets one attempt to `origin` through, or throws {@link CircuitOpenError}. */
  acquire(origin: string): CircuitTicket {
    let circuit = this.circuits.get(origin);
    if (circuit === undefined) {
      circuit = new OriginCircuit(origin, this.settings, this.now);
      this.circuits.set(origin, circuit);
    }
    if (circuit.state === 'closed') return { circuit, generation: circuit.generation, probe: false };
    this.admit(circuit, true);
    return { circuit, generation: circuit.generation, probe: true };
  }

  /** Records the outcome of an attempt let through by {@link acquire}. */
  record(ticket: CircuitTicket, outcome: AttemptOutcome): void {
    const { circuit } = ticket;
    if (ticket.generation !== circuit.generation) return;
    if (ticket.probe) {
      circuit.probes--;
      if (outcome === 'success') this.close(circuit, 'probe succeeded');
      else if (outcome === 'failure') this.open(circuit, 'probe failed');
      return;
    }
    if (outcome === 'neutral') return;
    this.count(circuit, outcome === 'failure');
  }

  /**
   * A response recorded as a success had its whole body arrive (or was dropped by the caller): only now
   * does it end a run of consecutive failures, since the body may still break.
   */
  recordBodyDone(origin: string): void {
    const circuit = this.circuits.get(origin);
    if (circuit !== undefined && circuit.state === 'closed') circuit.consecutive = 0;
  }

  /** Counts a failure that surfaced after the headers (a reset or stall mid-body) on a closed circuit. */
  recordLateFailure(origin: string): void {
    const circuit = this.circuits.get(origin);
    if (circuit === undefined || circuit.state !== 'closed') return;
    // The attempt was already counted when its headers arrived; now it is also a failure.
    circuit.window.add(0, 1);
    circuit.consecutive++;
    this.judge(circuit);
  }

  private count(circuit: OriginCircuit, failed: boolean): void {
    circuit.window.add(1, failed ? 1 : 0);
    // A success ends the failure run only once its body is through (recordBodyDone).
    if (!failed) return;
    circuit.consecutive++;
    this.judge(circuit);
  }

  private judge(circuit: OriginCircuit): void {
    const { consecutiveFailures, failureRatio, minimumRequests, window } = this.settings;
    if (circuit.consecutive >= consecutiveFailures) return this.open(circuit, `${circuit.consecutive} consecutive failures`);
    const [attempts, failures] = circuit.window.sums();
    if (attempts >= minimumRequests && failures / attempts >= failureRatio) {
      this.open(circuit, `${failures} of ${attempts} attempts failed in ${window} ms`);
    }
  }

  private admit(circuit: OriginCircuit, take: boolean): void {
    const now = this.now();
    if (circuit.state === 'open') {
      if (now < circuit.openUntil) throw new CircuitOpenError(circuit.origin, 'open', circuit.openUntil - now, circuit.reason);
      if (!take) return;
      this.transition(circuit, 'half-open', `open for ${this.settings.openDuration} ms`);
    }
    if (circuit.probes >= this.settings.halfOpenProbes) {
      throw new CircuitOpenError(circuit.origin, 'half-open', 0, `${circuit.probes} probe(s) in flight`);
    }
    if (take) circuit.probes++;
  }

  private open(circuit: OriginCircuit, reason: string): void {
    circuit.openUntil = this.now() + this.settings.openDuration;
    circuit.reason = reason;
    this.transition(circuit, 'open', reason, Date.now() + this.settings.openDuration);
  }

  private close(circuit: OriginCircuit, reason: string): void {
    circuit.consecutive = 0;
    circuit.window.reset();
    this.transition(circuit, 'closed', reason);
  }

  private transition(circuit: OriginCircuit, to: CircuitState, reason: string, retryAt?: number): void {
    const from = circuit.state;
    circuit.state = to;
    circuit.probes = 0;
    circuit.generation++;
    const listener = this.settings.onStateChange;
    if (listener === undefined) return;
    try {
      listener(retryAt === undefined ? { origin: circuit.origin, from, to, reason } : { origin: circuit.origin, from, to, reason, retryAt });
    } catch {
      // A faulty observer must not break requests.
    }
  }
}
