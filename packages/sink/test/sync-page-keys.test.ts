// A page's keys and its COPY bytes, as the sync makes them without a string per record: the same key sent twice in
// one page (as text and as a number) is one row with the last values, and the COPY text of numbers is what `String`
// spells, its bytes left alone once handed to a COPY that failed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column } from '../src/index.js';
import { openTarget } from '../src/index.js';
import { RowMaker, upsertBatch } from '../src/sync/apply.js';
import { applyChanges } from '../src/sync/delta-apply.js';
import { CopyEncoder } from '../src/sync/pg-copy.js';
import { openSqlite, type SqliteTarget } from '../src/sync/sqlite.js';

let dir: string;
beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'sluice-page-keys-')); });
afterAll(() => rm(dir, { recursive: true, force: true }));

const column = (name: string, kind: Column['kind'], key = false, more: Partial<Column> = {}): Column =>
  ({ name, edmType: `Edm.${kind}`, kind, nullable: !key, key, ...more });

describe('applyChanges: the keys of a page', () => {
  it('a key sent again in one page, as text, as a number or as an Int64 above 2^53, is one row with its last values; removals by key too', async () => {
    const path = join(dir, 'keys.db');
    const target = await openTarget(`sqlite:${path}`);
    const columns = [column('K', 'int64', true), column('V', 'string')];
    try {
      await target.createTable('T', columns);
      const rows = new RowMaker(target, columns);
      const applied = await target.transaction(() => applyChanges(target, 'T', rows, [
        { kind: 'entity', value: { K: '5', V: 'text' } },
        { kind: 'entity', value: { K: 5, V: 'number' } },
        { kind: 'entity', value: { K: '9007199254740993', V: 'big' } },
        { kind: 'entity', value: { K: '9007199254740993', V: 'big again' } },
        { kind: 'entity', value: { K: '-7', V: 'gone' } },
        { kind: 'removed', id: 'T(-7)', reason: 'deleted' },
        { kind: 'removed', id: 'T(-7L)', reason: 'deleted' },
        { kind: 'entity', value: { K: 6, V: 'six' } },
      ]));
      // Each run of upserts is written once with the last value of each key; the two removals of -7 are one.
      expect(applied).toEqual({ upserted: 4, deleted: 1 });
    } finally {
      await target.close();
    }
    const db = openSqlite(path);
    try {
      expect(db.prepare('SELECT CAST(K AS TEXT) AS K, V FROM T ORDER BY K').all()).toEqual([
        { K: '5', V: 'number' }, { K: '6', V: 'six' }, { K: '9007199254740993', V: 'big again' },
      ]);
    } finally {
      db.close();
    }
  });

  it('a composite key and a binary key: the same values in one page are one row', async () => {
    const path = join(dir, 'composite.db');
    const target = await openTarget(`sqlite:${path}`);
    const columns = [column('A', 'int', true, { bits: 32, signed: true }), column('B', 'binary', true), column('V', 'string')];
    try {
      await target.createTable('T', columns);
      const rows = new RowMaker(target, columns);
      const applied = await target.transaction(() => applyChanges(target, 'T', rows, [
        { kind: 'entity', value: { A: 1, B: 'AQI=', V: 'first' } },
        { kind: 'entity', value: { A: 1, B: 'AQI', V: 'second' } },
        { kind: 'entity', value: { A: 1, B: 'AQM=', V: 'other' } },
      ]));
      expect(applied).toEqual({ upserted: 2, deleted: 0 });
    } finally {
      await target.close();
    }
    const db = openSqlite(path);
    try {
      expect(db.prepare('SELECT A, hex(B) AS B, V FROM T ORDER BY B').all()).toEqual([{ A: 1, B: '0102', V: 'second' }, { A: 1, B: '0103', V: 'other' }]);
    } finally {
      db.close();
    }
  });
});

describe('upsertBatch into SQLite: each row written as it is made, into one reused array', () => {
  it('a value set by one record is not left in the next record\'s row; a key sent again keeps its last values; nothing to await', async () => {
    const path = join(dir, 'batch.db');
    const target = await openTarget(`sqlite:${path}`);
    const columns = [column('K', 'int64', true), column('V', 'string'), column('N', 'double')];
    const keys = new Set<unknown>();
    try {
      await target.createTable('T', columns);
      const rows = new RowMaker(target, columns);
      await target.transaction(() => {
        // Written at once: the call has nothing left to wait for (no promise per batch).
        expect(upsertBatch(target as SqliteTarget, 'T', rows, [{ K: 1, V: 'one', N: 1.5 }, { K: 2 }, { K: '3', V: null, N: -2 }], keys)).toBeUndefined();
        expect(upsertBatch(target as SqliteTarget, 'T', rows, [{ K: 4, V: 'four' }, { K: 1, V: 'one again', N: null }], keys)).toBeUndefined();
        return Promise.resolve();
      });
    } finally {
      await target.close();
    }
    expect([...keys].sort()).toEqual([1, 2, 3, 4]);
    const db = openSqlite(path);
    try {
      expect(db.prepare('SELECT K, V, N FROM T ORDER BY K').all()).toEqual([
        { K: 1, V: 'one again', N: null }, { K: 2, V: null, N: null }, { K: 3, V: null, N: -2 }, { K: 4, V: 'four', N: null },
      ]);
    } finally {
      db.close();
    }
  });
});

describe('CopyEncoder', () => {
  const numbers = [0, -0, 7, -42, 2 ** 31, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 1e21, 123456789012345680000, 0.1, 0.30000000000000004,
    -1.5e-7, 5e-324, 1.7976931348623157e308, 3.7, Infinity, -Infinity, NaN];

  it('spells every number as String does, NULL as \\N, text escaped, one line per row', () => {
    const encoder = new CopyEncoder([column('N', 'double'), column('I', 'int', false, { bits: 32, signed: true }), column('S', 'string')]);
    const rows = numbers.map((n, i) => [n, i % 3 === 0 ? null : -i, i % 2 ? `a\tb\\c\nd ${i}` : 'plain']);
    const expected = rows.map(([n, i, s]) => `${String(n)}\t${i === null ? '\\N' : String(i)}\t${String(s).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n')}\n`).join('');
    expect(encoder.encodeRows(rows).toString('utf8')).toBe(expected);
  });

  it('a page bigger than its memory, of multi-byte text, comes out whole; bytes handed to a COPY that failed are not written over', () => {
    const encoder = new CopyEncoder([column('ID', 'int', true, { bits: 32, signed: true }), column('S', 'string')]);
    const page = (tag: string): unknown[][] => Array.from({ length: 3000 }, (_, i) => [i, `${tag} Zoë ✓ ${'x'.repeat(i % 50)}`]);
    const text = (tag: string): string => page(tag).map(([i, s]) => `${String(i)}\t${String(s)}\n`).join('');
    const first = encoder.encodeRows(page('one'));
    expect(first.toString('utf8')).toBe(text('one'));
    encoder.done(false);
    const second = encoder.encodeRows(page('two'));
    expect(second.toString('utf8')).toBe(text('two'));
    expect(first.toString('utf8')).toBe(text('one'));
  });
});
