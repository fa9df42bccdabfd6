// A run of a page's rows written into PostgreSQL batch by batch as they arrive: one COPY, opened at the run's
// first batch and fed each batch's text as soon as it is made, ended with the run (at its page's end, or where a
// delta page turns from upserts to deletes). No round trip is added per batch: a run costs what a whole page
// did (SAVEPOINT, COPY, RELEASE for a load; COPY into a temporary table and one statement for changes). The run's
// COPY text stays in the encoder's memory (reused from run to run, outside V8's heap) until the run ends, so that a
// refused row is named from its line, and the run can be copied again: into the temporary table when a load's COPY
// meets a key loaded by an earlier page, and in shorter prefixes to find the row a statement refuses.
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import type { Column } from '../columns.js';
import { killPlanned, reached } from './kill-at.js';
import type { CopyEncoder, SubmitQuery } from './pg-copy.js';
import { copyLine, firstRefused, isDatabaseError, refusal, refusesValues } from './pg-refused.js';
import { ident } from './sql-types.js';

/** What a run asks of its connection (the PostgreSQL target). */
export interface RunHost {
  readonly submit: SubmitQuery;
  query(sql: string): Promise<unknown>;
  /** The temporary table of `columns` of `table`. */
  temp(table: string, columns: readonly Column[]): Promise<string>;
}

/** `load`: copied straight into a table this connection created; `upsert`, `remove`: through a temporary table. */
export type RunKind = 'load' | 'upsert' | 'remove';

/** One `COPY ... FROM STDIN` under way: its failure is kept (the stream must not throw it unheard), not written to further. */
class Copy {
  private readonly stream: Writable;
  private failure: { error: unknown } | undefined;
  /** Resolves when the COPY fails (a write's callback may then never come). */
  private readonly failed: Promise<void>;

  constructor(submit: SubmitQuery, into: string, columns: readonly Column[]) {
    this.stream = submit(copyFrom(`COPY ${ident(into)} (${columns.map((c) => ident(c.name)).join(', ')}) FROM STDIN`));
    this.failed = new Promise((resolve) => this.stream.on('error', (error: unknown) => {
      this.failure ??= { error };
      resolve();
    }));
  }

  /** Hands `bytes` to the connection; nothing waits for the server (a failure is thrown by {@link end}). */
  async write(bytes: Buffer): Promise<void> {
    if (this.failure !== undefined || bytes.length === 0) return;
    if (killPlanned) {
      // The test hook's mid-COPY point: the first half is on its way to the server before the process dies.
      await Promise.race([new Promise<void>((resolve) => this.stream.write(bytes.subarray(0, bytes.length >> 1), () => resolve())), this.failed]);
      reached('copying');
      if (this.failure === undefined) this.stream.write(bytes.subarray(bytes.length >> 1));
    } else {
      this.stream.write(bytes);
    }
  }

  /** Ends the COPY; its failure (a duplicate key, a bad value) rejects. */
  async end(): Promise<void> {
    if (this.failure !== undefined) throw this.failure.error;
    this.stream.end();
    await finished(this.stream);
  }

  /** Cancels the COPY (PostgreSQL gets a CopyFail and keeps none of it); resolves once the connection is free. */
  async abort(): Promise<void> {
    // A COPY that failed or completed holds the connection no more (and its stream cannot send a CopyFail).
    if (this.failure !== undefined || this.stream.writableFinished) return;
    if (!this.stream.destroyed) this.stream.destroy(new Error('sluice: the page was not completed'));
    await finished(this.stream).catch(() => undefined);
  }
}

/** Sends `bytes` (whole lines of COPY text) into `into` as one COPY. */
async function copyText(submit: SubmitQuery, into: string, columns: readonly Column[], bytes: Buffer): Promise<void> {
  const copy = new Copy(submit, into, columns);
  await copy.write(bytes);
  await copy.end();
}

/** A value of a COPY text field, as `sqlValue` made it for the column (for naming a refused row's key). */
function fieldValue(column: Column, field: string | undefined): unknown {
  if (field === undefined || field === '\\N') return null;
  const text = field.replace(/\\(.)/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
  switch (column.kind) {
    case 'boolean': return text === 't';
    case 'int': case 'double': case 'single': return /^-?\d/.test(text) ? Number(text) : text;
    case 'binary': return Buffer.from(text.slice(2), 'hex');
    default: return text;
  }
}

/** One run of rows of one kind into one table, batch by batch: {@link add} each batch, then {@link end}. */
export class PgRun {
  private copy: Copy | undefined;
  /** Bytes of the run's COPY text so far, at the start of the encoder's memory. */
  private size = 0;
  /** Bytes of it handed to the COPY. */
  private sent = 0;
  private open = true;
  /** A load's savepoint, taken before its COPY. */
  private saved: Promise<unknown> | undefined;

  constructor(private readonly host: RunHost, readonly table: string, readonly columns: readonly Column[], private readonly encoder: CopyEncoder, readonly kind: RunKind) {}

  /** Adds a batch of rows (values in column order, converted; no key twice in a run): its COPY text is sent at once. */
  async add(rows: readonly unknown[][]): Promise<void> {
    for (const row of rows) this.put(row);
    await this.send();
  }

  /** Adds one row to the run's text (encoded at once: `row` may be reused); {@link send} sends what was put. */
  put(row: readonly unknown[]): void {
    this.size = this.encoder.row(row, this.size);
  }

  /** Sends the text of the rows put since the last send (a batch's) into the run's COPY. */
  async send(): Promise<void> {
    const from = this.sent;
    this.size = this.encoder.flush(this.size);
    this.sent = this.size;
    if (from === this.size) return;
    this.copy ??= await this.start();
    await this.copy.write(this.encoder.slice(from, this.size));
  }

  private async start(): Promise<Copy> {
    if (this.kind === 'load') {
      // Not waited for (the batch's rows need not live through a round trip): pg sends the COPY after it, and
      // {@link end} meets its failure first.
      const saved = this.host.query('SAVEPOINT sluice_copy');
      saved.catch(() => undefined);
      this.saved = saved;
      return new Copy(this.host.submit, this.table, this.columns);
    }
    return new Copy(this.host.submit, await this.host.temp(this.table, this.columns), this.columns);
  }

  /** Ends the run: its COPY completed, and its rows applied to the table; a refused row is a {@link RefusedRow}. */
  async end(): Promise<void> {
    const copy = this.copy;
    this.open = false;
    this.copy = undefined;
    if (copy === undefined) return;
    let ok = false;
    try {
      await this.saved;
      try {
        await copy.end();
      } catch (error) {
        // A load's key there already (a service whose pages overlap): undone, and the run goes the upsert way.
        if (this.kind !== 'load' || (error as { constraint?: unknown }).constraint !== `${this.table}_pkey`) throw this.copyRefused(error);
        await this.host.query('ROLLBACK TO SAVEPOINT sluice_copy');
        const temp = await this.host.temp(this.table, this.columns);
        try {
          await copyText(this.host.submit, temp, this.columns, this.encoder.slice(0, this.size));
        } catch (again) {
          throw this.copyRefused(again);
        }
        await this.apply(temp);
        ok = true;
        return;
      }
      if (this.kind === 'load') await this.host.query('RELEASE SAVEPOINT sluice_copy');
      else await this.apply(await this.host.temp(this.table, this.columns));
      ok = true;
    } finally {
      this.encoder.done(ok);
    }
  }

  /** Cancels a run not ended (its transaction fails): the connection is free for the rollback once it resolves. */
  async abort(): Promise<void> {
    if (!this.open) return;
    this.open = false;
    const copy = this.copy;
    this.copy = undefined;
    await copy?.abort();
    this.encoder.done(false);
  }

  /** A failed COPY of the run: PostgreSQL's refusal named with the row of the line it gives. */
  private copyRefused(error: unknown): unknown {
    if (!isDatabaseError(error)) return error;
    const at = copyLine(error);
    return refusal(error, this.table, this.columns, at && this.lineRow(at.line), at?.column, this.kind === 'remove');
  }

  /** The key values of the run's line `line` (1-based), other columns undefined; undefined when there is no such line. */
  private lineRow(line: number): unknown[] | undefined {
    const bytes = this.encoder.slice(0, this.size);
    let start = 0;
    for (let i = 1; i < line; i++) {
      const nl = bytes.indexOf(10, start);
      if (nl < 0) return undefined;
      start = nl + 1;
    }
    if (start >= bytes.length) return undefined;
    const end = bytes.indexOf(10, start);
    const fields = bytes.toString('utf8', start, end < 0 ? bytes.length : end).split('\t');
    return this.columns.map((c, i) => (c.key ? fieldValue(c, fields[i]) : undefined));
  }

  /** The statement that applies the rows copied into `temp` to the table (emptying `temp`). */
  private statement(temp: string): string {
    const columns = this.columns;
    if (this.kind === 'remove') {
      const match = columns.map((k) => `t.${ident(k.name)} = page.${ident(k.name)}`).join(' AND ');
      return `WITH page AS (DELETE FROM ${ident(temp)} RETURNING *) DELETE FROM ${ident(this.table)} t USING page WHERE ${match}`;
    }
    const names = columns.map((c) => ident(c.name)).join(', ');
    const key = columns.filter((c) => c.key).map((c) => ident(c.name));
    const rest = columns.filter((c) => !c.key).map((c) => `${ident(c.name)} = EXCLUDED.${ident(c.name)}`);
    return `WITH page AS (DELETE FROM ${ident(temp)} RETURNING *) INSERT INTO ${ident(this.table)} (${names}) SELECT ${names} FROM page ` +
      `ON CONFLICT (${key.join(', ')}) DO ${rest.length ? `UPDATE SET ${rest.join(', ')}` : 'NOTHING'}`;
  }

  /**
   * Applies the rows copied into `temp`. When PostgreSQL refuses a value there (a constraint, a trigger), the
   * statement is undone to its savepoint and shorter prefixes of the run are tried (each undone) to name the first
   * refused row.
   */
  private async apply(temp: string): Promise<void> {
    const sql = this.statement(temp);
    try {
      // One round trip: the savepoint is taken, the statement run, the savepoint let go (skipped when it fails).
      await this.host.query(`SAVEPOINT sluice_apply; ${sql}; RELEASE SAVEPOINT sluice_apply`);
    } catch (error) {
      const removal = this.kind === 'remove';
      if (!isDatabaseError(error) || !refusesValues(error)) throw isDatabaseError(error) ? refusal(error, this.table, this.columns, undefined, undefined, removal) : error;
      await this.host.query('ROLLBACK TO SAVEPOINT sluice_apply');
      const ends = this.lineEnds();
      const line = await firstRefused(ends.map((_, i) => i + 1), async (count) => {
        await this.host.query(`SAVEPOINT sluice_try; DELETE FROM ${ident(temp)}`);
        try {
          await copyText(this.host.submit, temp, this.columns, this.encoder.slice(0, ends[count - 1]!));
          await this.host.query(sql);
          return false;
        } catch (attempt) {
          if (!isDatabaseError(attempt)) throw attempt;
          return true;
        } finally {
          await this.host.query('ROLLBACK TO SAVEPOINT sluice_try; RELEASE SAVEPOINT sluice_try');
        }
      });
      throw refusal(error, this.table, this.columns, line === undefined ? undefined : this.lineRow(line), undefined, removal);
    }
  }

  /** Where each line of the run's text ends (after its newline). */
  private lineEnds(): number[] {
    const bytes = this.encoder.slice(0, this.size);
    const ends: number[] = [];
    for (let nl = bytes.indexOf(10); nl >= 0; nl = bytes.indexOf(10, nl + 1)) ends.push(nl + 1);
    return ends;
  }
}
