// Long-running jobs started by the StartJob action: answered 202 with a status monitor that reports
// Running for a set number of polls, then the outcome, in one of two styles: a status resource
// (`{"Status":"Running"}`, then `Succeeded` with a `ResultURL`, `Failed` or `Cancelled`) or the
// OData v4 status monitor (202 while running, then the result with 200, or a 303 to it), or the monitor as
// OData 4.01 Part 1 section 11.6 has it: 200 with the final response embedded as `application/http`.
import { badRequest, ODataServerError } from '../errors.js';

/** How the monitor answers. */
export type MonitorStyle = 'status' | 'odata' | 'odata-303' | 'odata-http';
/** How a job ends. */
export type JobOutcome = 'Succeeded' | 'Failed' | 'Cancelled';

/** Parameters of StartJob. */
export interface JobParams {
  /** Polls answered with Running before the outcome (default 2). */
  Polls?: number;
  Outcome?: JobOutcome;
  Monitor?: MonitorStyle;
  /** `Retry-After` seconds sent while running. */
  RetryAfter?: number;
  /** Answer 202 even without `Prefer: respond-async`. */
  Async?: boolean;
  /** Origin of the ResultURL (default the service's), to test that no credential follows it. */
  ResultOrigin?: string;
}

/** One job. */
export interface Job {
  readonly id: number;
  readonly polls: number;
  readonly outcome: JobOutcome;
  readonly monitor: MonitorStyle;
  readonly retryAfter: number | undefined;
  readonly resultOrigin: string | undefined;
  /** Polls so far. */
  seen: number;
  /** Cancelled by a DELETE on the monitor. */
  cancelled: boolean;
}

/** An answer of the monitor: status, headers, and a JSON body or none; `embedded` is a final response to wrap as `application/http`. */
export interface MonitorAnswer { status: number; headers: Record<string, string>; body: unknown; embedded?: { status: number; body: unknown } }

/** The jobs of one server. */
export class Jobs {
  readonly all = new Map<number, Job>();
  private next = 1;

  start(p: JobParams): Job {
    const outcome = p.Outcome ?? 'Succeeded';
    const monitor = p.Monitor ?? 'status';
    if (!['Succeeded', 'Failed', 'Cancelled'].includes(outcome)) throw badRequest(`Unknown Outcome '${String(outcome)}'`, 'Outcome');
    if (!['status', 'odata', 'odata-303', 'odata-http'].includes(monitor)) throw badRequest(`Unknown Monitor '${String(monitor)}'`, 'Monitor');
    const job: Job = {
      id: this.next++, polls: p.Polls ?? 2, outcome, monitor, retryAfter: p.RetryAfter, resultOrigin: p.ResultOrigin, seen: 0, cancelled: false,
    };
    this.all.set(job.id, job);
    return job;
  }

  get(id: number): Job {
    const job = this.all.get(id);
    if (!job) throw new ODataServerError(404, 'NotFound', `No job ${id}`);
    return job;
  }

  /** The result a finished job gives. */
  result(job: Job): { JobID: number; Outcome: string } {
    return { JobID: job.id, Outcome: job.outcome };
  }

  /** One poll of the monitor at `monitorURL` (absolute); `origin` is the service's. */
  poll(job: Job, monitorURL: string, origin: string): MonitorAnswer {
    job.seen++;
    const resultURL = `${job.resultOrigin ?? origin}${new URL(monitorURL).pathname}/result`;
    if (job.cancelled || (job.seen > job.polls && job.outcome === 'Cancelled')) return { status: 200, headers: {}, body: { Status: 'Cancelled' } };
    if (job.seen <= job.polls) {
      const headers: Record<string, string> = job.retryAfter !== undefined ? { 'retry-after': String(job.retryAfter) } : {};
      if (job.monitor === 'status') return { status: 200, headers, body: { Status: 'Running' } };
      return { status: 202, headers: { ...headers, location: monitorURL }, body: undefined };
    }
    if (job.monitor === 'status') {
      if (job.outcome === 'Failed') return { status: 200, headers: {}, body: { Status: 'Failed', Error: { code: 'JobFailed', message: `Job ${job.id} failed` } } };
      return { status: 200, headers: {}, body: { Status: 'Succeeded', ResultURL: resultURL } };
    }
    if (job.monitor === 'odata-http') {
      const embedded = job.outcome === 'Failed'
        ? { status: 500, body: { error: { code: 'JobFailed', message: `Job ${job.id} failed` } } }
        : { status: 200, body: this.result(job) };
      return { status: 200, headers: { 'content-type': 'application/http', asyncresult: String(embedded.status) }, body: undefined, embedded };
    }
    if (job.outcome === 'Failed') throw new ODataServerError(500, 'JobFailed', `Job ${job.id} failed`);
    if (job.monitor === 'odata-303') return { status: 303, headers: { location: resultURL }, body: undefined };
    return { status: 200, headers: { 'asyncresult': '200' }, body: this.result(job) };
  }
}
