// Rows into PostgreSQL by `COPY ... FROM STDIN` (text format) through pg-copy-streams: one page is one
// COPY, encoded here from the values `sqlValue` made for the column (NULL as `\N`; text escaped).
import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import type { Column } from '../columns.js';
import { killPlanned, reached } from './kill-at.js';
import { ident } from './sql-types.js';

const ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;

/** Text as COPY's text format reads it: backslash, newline, carriage return and tab escaped. */
function escaped(text: string): string {
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ESCAPES[c]!) : text;
}

/** The COPY text of one value of a column (not null), from what `sqlValue` made of it. */
function encoderOf(column: Column): (value: unknown) => string {
  switch (column.kind) {
    case 'boolean': return (v) => (v ? 't' : 'f');
    // Numbers, numeric text, instants, dates, times and GUIDs hold no character COPY would read otherwise.
    case 'int': case 'int64': case 'decimal': case 'double': case 'single': case 'date': case 'timestamp': case 'time': case 'guid':
      return (v) => String(v);
    // bytea's hex form, its backslash escaped for COPY.
    case 'binary': return (v) => `\\\\x${Buffer.from(v as Uint8Array).toString('hex')}`;
    case 'json': case 'duration': case 'string': return (v) => escaped(String(v));
  }
}

/** Encodes rows (values in column order) as COPY text. */
export class CopyEncoder {
  private readonly encode: ((value: unknown) => string)[];
  constructor(columns: readonly Column[]) {
    this.encode = columns.map(encoderOf);
  }

  text(rows: readonly unknown[][]): string {
    const encode = this.encode;
    let out = '';
    for (const row of rows) {
      let line = '';
      for (let i = 0; i < encode.length; i++) {
        const v = row[i];
        line += `${i === 0 ? '' : '\t'}${v === null || v === undefined ? '\\N' : encode[i]!(v)}`;
      }
      out += `${line}\n`;
    }
    return out;
  }
}

/** A pg client's `query` that takes a submittable (the COPY stream) and returns it. */
export type SubmitQuery = (submittable: Writable) => Writable;

/** Copies `rows` into `table`'s `columns`: one COPY; its failure (a duplicate key, a bad value) rejects. */
export async function copyRows(submit: SubmitQuery, table: string, columns: readonly Column[], encoder: CopyEncoder, rows: readonly unknown[][]): Promise<void> {
  const stream = submit(copyFrom(`COPY ${ident(table)} (${columns.map((c) => ident(c.name)).join(', ')}) FROM STDIN`));
  const data = Buffer.from(encoder.text(rows), 'utf8');
  if (killPlanned) {
    // The test hook's mid-COPY point: the first half is on its way to the server before the process dies.
    await new Promise<void>((resolve, reject) => stream.write(data.subarray(0, data.length >> 1), (e) => (e ? reject(e) : resolve())));
    reached('copying');
    stream.end(data.subarray(data.length >> 1));
  } else {
    stream.end(data);
  }
  await finished(stream);
}
