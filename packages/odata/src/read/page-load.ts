import { ODataFormatError, RecordDecodeError, ResponseSizeError } from '../errors.js';
import type { PageInfo } from '../protocol/types.js';
import { expectJson, send, type ReadContext } from './context.js';
import { ItemScanner, type ScanBatch } from './scanner.js';
import type { StreamItem } from './stream-item.js';
import { utf8ArrayText } from './utf8.js';
import { mayHoldControl, withoutControl } from './control.js';
import { quoteExactNumbers } from './exact-numbers.js';
import { largeProperties } from './precision.js';

const NONE: ReadonlySet<string> = new Set();

/** Elements parsed with one JSON.parse at most: bounds the delay before a run's first record. */
const RUN_LIMIT = 256;

/** A run of scanned elements, parsed only when the consumer reaches it (or parsed already: `values`). */
interface Run {
  buf: Buffer;
  starts: number[];
  ends: number[];
  from: number;
  to: number;
  /** Position of the run's first element in the page. */
  index: number;
  /** Parsed by the scanner already, with its verdict on control information (its bytes need not be in `buf`). */
  values?: unknown[];
  control?: boolean;
}

/** Whether the records of a run may hold control information to remove: its bytes hold an `@` other than a kept key. */
function runMayHoldControl(run: Run): boolean {
  return run.control ?? mayHoldControl(run.buf, run.starts[run.from]!, run.ends[run.to - 1]!);
}

/** A record of a run that failed to decode, in the place of its value (a class no record can be an instance of). */
class RecordFailure {
  constructor(readonly error: Error) {}
}

const NO_VALUES: unknown[] = [];

const EMPTY_CHUNK = new Uint8Array(0);

/**
 * A new empty list of body chunks (held or backlog). Made from a one-element literal emptied at once, so that
 * it has from the start the elements kind that holding chunks gives an array: an empty `[]` starts with
 * another (small integers), so a page whose backlog never held a chunk (read as it arrived) and a released
 * prefetched page had backlogs of different maps, and V8 threw away the code it had optimised for the first
 * (`take`, `nextRun`, the stream's `next`: "wrong map" at `backlog.shift()`) when the second came, and
 * compiled it again.
 */
function chunkList(): Uint8Array[] {
  const list = [EMPTY_CHUNK];
  list.pop();
  return list;
}

/**
 * One attempt at reading one page: requests it and scans its body as bytes arrive, queueing runs of
 * complete records that are parsed (one `JSON.parse` per run) when the consumer reaches them, then reads
 * the next link and count from the envelope. Records before `skip` are dropped: they were delivered by an
 * earlier attempt at the same page.
 */
export class PageLoad {
  private runs: (Run | undefined)[] = [];
  private runHead = 0;
  /** Records of the current run, parsed and decoded: values, and a {@link RecordFailure} for each record that failed. */
  private ready: unknown[] = NO_VALUES;
  private readyHead = 0;
  /** RecordFailures among `ready` not handed out yet. */
  private readyFailures = 0;
  private wake: (() => void) | undefined;
  /** Set once the page is fully read or has failed. */
  done = false;
  info: PageInfo | undefined;
  error: unknown;
  /** Records seen in this attempt, skipped ones included. */
  seen = 0;
  /** The response began (status and headers in): a failure after this point broke the body. */
  bodyStarted = false;
  /** The load failed before sending (a refused or repeated link): nothing to resume. */
  readonly refused: boolean;
  /** Called once when `done` turns true. */
  onDone: (() => void) | undefined;
  /**
   * Body chunks of a prefetched page, kept as bytes until the caller reaches the page ({@link release}): parsed
   * records ahead of the caller cost the garbage collector far more than their bytes do.
   */
  private held: Uint8Array[] | undefined;
  /** Held chunks of a released page not scanned yet: scanned one at a time as the caller needs records. */
  private backlog: Uint8Array[] = chunkList();
  private scanner: ItemScanner | undefined;
  /** Wakes a run that read the whole body while held. */
  private wakeRun: (() => void) | undefined;
  /** Resolves when done (never rejects). */
  readonly finished: Promise<void>;
  /** Set when this answer's numbers are read from their digits: the Int64/Decimal property names. */
  private exact: ReadonlySet<string> | undefined;

  constructor(private readonly ctx: ReadContext, readonly url: string, readonly skip: number, signal: AbortSignal, failure?: unknown, held = false) {
    this.refused = failure !== undefined;
    if (held) this.held = chunkList();
    this.finished = (failure === undefined ? this.run(signal) : Promise.reject(failure)).then(
      (info) => this.finish(info, undefined),
      (error: unknown) => this.finish(undefined, error),
    );
  }

  /** A load that failed before sending anything (such as a refused next link). */
  static failed(ctx: ReadContext, url: string, error: unknown): PageLoad {
    return new PageLoad(ctx, url, 0, AbortSignal.abort(), error);
  }

  /** Next record or record error, or undefined when none is ready yet. */
  take(): StreamItem<unknown> | undefined {
    while (this.readyHead >= this.ready.length) if (!this.nextRun()) return undefined;
    const value = this.ready[this.readyHead];
    // Release delivered records at once so a page's memory shrinks as it is consumed.
    this.ready[this.readyHead++] = undefined;
    if (this.readyFailures > 0 && value instanceof RecordFailure) {
      this.readyFailures--;
      return { error: value.error };
    }
    return { value };
  }

  /**
   * The next records that are ready, as one array (a run of a chunk, up to a record that failed), or the
   * next record error; undefined when none is ready yet. The array is the caller's: it is not kept.
   */
  takeBatch(): StreamItem<unknown[]> | undefined {
    while (this.readyHead >= this.ready.length) if (!this.nextRun()) return undefined;
    const ready = this.ready;
    const from = this.readyHead;
    if (this.readyFailures === 0) {
      this.ready = NO_VALUES;
      this.readyHead = 0;
      return { value: from === 0 ? ready : ready.slice(from) };
    }
    const first = ready[from];
    if (first instanceof RecordFailure) {
      ready[this.readyHead++] = undefined;
      this.readyFailures--;
      return { error: first.error };
    }
    let to = from + 1;
    while (to < ready.length && !(ready[to] instanceof RecordFailure)) to++;
    this.readyHead = to;
    const value = ready.slice(from, to);
    ready.fill(undefined, from, to);
    return { value };
  }

  /** Makes the next queued run (scanning a backlog chunk if none is queued) the ready records; false when there is nothing. */
  private nextRun(): boolean {
    if (this.runHead >= this.runs.length) return this.scanBacklog();
    const run = this.runs[this.runHead]!;
    this.runs[this.runHead++] = undefined;
    if (this.runHead === this.runs.length) { this.runs = []; this.runHead = 0; }
    this.readyHead = 0;
    this.ready = this.values(run);
    return true;
  }

  /** All remaining records and record errors at once (for pages()). */
  drain(): StreamItem<unknown>[] {
    const items: StreamItem<unknown>[] = [];
    for (let item = this.take(); item !== undefined; item = this.take()) items.push(item);
    return items;
  }

  /** Resolves when a record is queued or the load is done. */
  changed(): Promise<void> {
    if (this.readyHead < this.ready.length || this.runHead < this.runs.length || this.backlog.length > 0 || this.done) return Promise.resolve();
    return new Promise((resolve) => { this.wake = resolve; });
  }

  private notify(): void {
    const wake = this.wake;
    if (wake) { this.wake = undefined; wake(); }
  }

  /** A record's decode error, its excerpt (the record's text) and message without the client's known secrets. */
  private decodeError(index: number, excerpt: string, cause: unknown): RecordDecodeError {
    return this.ctx.client.secrets.scrubError(new RecordDecodeError(index, excerpt, cause));
  }

  private finish(info: PageInfo | undefined, error: unknown): void {
    if (this.done) return;
    this.info = info;
    // A parser error quotes the body around its position: the client's known secrets leave it first.
    if (error !== undefined && this.error === undefined) this.error = this.ctx.client.secrets.scrubError(error);
    this.done = true;
    this.notify();
    this.onDone?.();
  }

  private async run(signal: AbortSignal): Promise<PageInfo> {
    const { ctx } = this;
    const response = await send(ctx, this.url, signal);
    await expectJson(response);
    this.bodyStarted = true;
    const { maxRecordBytes, maxPageBytes } = ctx.limits;
    if (ctx.precision?.exactFor(response, ctx.protocol.version) === true) this.exact = largeProperties(ctx.decode.entityType) ?? NONE;
    // Read exactly, records are parsed only here (the scanner's speculative parse would round numbers).
    const scanner = this.scanner = new ItemScanner(ctx.protocol.recordPaths, maxRecordBytes, this.exact === undefined);
    let bytes = 0;
    for await (const chunk of response.body) {
      bytes += chunk.byteLength;
      // Leaving the loop by throwing cancels the body.
      if (maxPageBytes !== undefined && bytes > maxPageBytes) throw new ResponseSizeError('maxPageBytes', maxPageBytes);
      if (this.error !== undefined) throw this.error;
      if (this.held !== undefined) this.held.push(chunk);
      else if (this.backlog.length > 0) this.backlog.push(chunk);
      else this.scan(chunk);
    }
    if (this.held !== undefined) {
      // The whole body is in: wait until the caller reaches this page, then parse it.
      await new Promise<void>((resolve) => {
        const onAbort = (): void => resolve();
        this.wakeRun = () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        };
        signal.addEventListener('abort', onAbort, { once: true });
      });
      signal.throwIfAborted();
    }
    while (this.scanBacklog());
    if (this.error !== undefined) throw this.error;
    const envelope = scanner.end();
    // A complete document without the array is not a broken body: asking again would get the same.
    if (!scanner.foundArray) throw new ODataFormatError(`The response has no record array (expected a collection in ${ctx.protocol.recordPaths.map((p) => p.join('.')).join(' or ')})`, response.status);
    return ctx.protocol.pageInfo(envelope);
  }

  /** Scans one body chunk and queues the records it completed; throws the scanner's size failure. */
  private scan(chunk: Uint8Array): void {
    const scanner = this.scanner!;
    const batch = scanner.push(chunk);
    if (batch.starts.length > 0 || batch.parsed.length > 0) this.queueRuns(batch);
    if (scanner.failure !== undefined) throw scanner.failure;
  }

  /** The caller reached this prefetched page: what arrived is parsed chunk by chunk as the caller reads it. */
  release(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.backlog = held;
    if (held.length > 0) this.notify();
    const wake = this.wakeRun;
    this.wakeRun = undefined;
    wake?.();
  }

  /** Scans the next backlog chunk; false when there is none. */
  private scanBacklog(): boolean {
    const chunk = this.backlog.shift();
    if (chunk === undefined || this.error !== undefined) return false;
    try {
      this.scan(chunk);
    } catch (error) {
      // A record over maxRecordBytes: the records before it are queued; the read ends with the error.
      this.backlog = chunkList();
      this.finish(undefined, error);
    }
    return true;
  }

  private queueRuns(batch: ScanBatch): void {
    const { buf, starts, ends, parsed } = batch;
    let from = 0;
    const ranges = (to: number): void => {
      while (from < to) {
        const end = Math.min(to, from + RUN_LIMIT);
        const index = this.seen;
        this.seen += end - from;
        // Records an earlier attempt at this page delivered are dropped.
        const first = Math.max(from, from + Math.min(end - from, this.skip - index));
        if (first < end) this.runs.push({ buf, starts, ends, from: first, to: end, index: index + first - from });
        from = end;
      }
    };
    for (const group of parsed) {
      ranges(group.after);
      const index = this.seen;
      this.seen += group.values.length;
      const drop = Math.max(0, Math.min(group.values.length, this.skip - index));
      const values = drop === 0 ? group.values : group.values.slice(drop);
      if (values.length > 0) this.runs.push({ buf, starts, ends, from: 0, to: values.length, index: index + drop, values, control: group.control });
    }
    ranges(starts.length);
    if (this.runHead < this.runs.length) this.notify();
  }

  /**
   * The records of a run, parsed (one JSON.parse for the run, record by record when that fails), checked
   * for precision (the page's first record), decoded and without control information; a record that fails
   * is a RecordFailure in its place (`readyFailures` counts them).
   */
  private values(run: Run): unknown[] {
    const { buf, starts, ends, from, to } = run;
    let values = run.values;
    let failures = 0;
    if (values === undefined) {
      try {
        // One JSON.parse for the whole run of elements.
        const text = utf8ArrayText(buf, starts[from]!, ends[to - 1]!);
        values = JSON.parse(this.exact === undefined ? text : quoteExactNumbers(text, 2, this.exact)) as unknown[];
      } catch {
        values = new Array<unknown>(to - from);
        for (let i = from; i < to; i++) {
          try {
            values[i - from] = this.parseOne(buf.toString('utf8', starts[i]!, ends[i]!));
          } catch (cause) {
            values[i - from] = new RecordFailure(this.decodeError(run.index + i - from, buf.toString('utf8', starts[i]!, Math.min(ends[i]!, starts[i]! + 200)), cause));
            failures++;
          }
        }
      }
    }
    // The precision guard looks at the first record of each page read without the exact path.
    if (run.index === 0 && this.exact === undefined && !(values[0] instanceof RecordFailure)) this.ctx.precision?.checkRecord(values[0], this.ctx.decode.entityType);
    const { protocol, decode, item } = this.ctx;
    const decodeRecord = item === undefined ? protocol.decodeRecord : item;
    const control = item === undefined && runMayHoldControl(run);
    if (decodeRecord !== undefined || control) {
      for (let i = 0; i < values.length; i++) {
        let value = values[i];
        if (value instanceof RecordFailure) continue;
        try {
          if (decodeRecord !== undefined) value = decodeRecord(value, decode);
          if (control) value = withoutControl(value);
          values[i] = value;
        } catch (cause) {
          const excerpt = run.values !== undefined ? safeJson(values[i]) : buf.toString('utf8', starts[from + i]!, Math.min(ends[from + i]!, starts[from + i]! + 200));
          values[i] = new RecordFailure(this.decodeError(run.index + i, excerpt, cause));
          failures++;
        }
      }
    }
    this.readyFailures = failures;
    return values;
  }

  private parseOne(text: string): unknown {
    return JSON.parse(this.exact === undefined ? text : quoteExactNumbers(text, 1, this.exact));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value)?.slice(0, 200) ?? '';
  } catch {
    return '';
  }
}
