// Streaming and server-driven paging through @sluice/odata against CAP v4 (Readings: 5,000 rows, 250 a page),
// and the quirks of CAP's query handling pinned as CAP 9.9 answers them.
import { describe, expect, it } from 'vitest';
import { ODataError, type Page } from '@sluice/odata';
import { useCapServer } from './support/cap-server.js';
import { rawGet, v4Client, type Reading } from './support/clients.js';

const cap = useCapServer();
const ROWS = 5000;
const PAGE = 250;

describe('CAP v4: streaming all 5,000 rows', () => {
  it('delivers every row exactly once, in order, across the server pages', async () => {
    const od = v4Client(cap());
    const seen: number[] = [];
    for await (const item of od.from<Reading>('Readings').orderBy('seq').select('seq', 'value').stream()) {
      if (item.error) throw item.error;
      seen.push(item.value.seq);
    }
    expect(seen).toHaveLength(ROWS);
    expect(new Set(seen).size).toBe(ROWS);
    expect(seen).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
  });

  it('follows CAP\'s relative next links; a full last page links to an empty page (quirk)', async () => {
    const od = v4Client(cap());
    const pages: Page<Reading>[] = [];
    for await (const page of od.from<Reading>('Readings').select('seq').count().pages()) pages.push(page);
    // 5,000 / 250 = 20 full pages, then the empty page the 20th one links to.
    expect(pages).toHaveLength(ROWS / PAGE + 1);
    expect(pages.slice(0, -1).every((p) => p.value.length === PAGE)).toBe(true);
    expect(pages.at(-1)!.value).toEqual([]);
    expect(pages.at(-1)!.nextLink).toBeUndefined();
    expect(pages[0]!.count).toBe(ROWS);
    // v4 next links are relative (OData JSON 4.01 4.6: against the context URL); sluice resolves them.
    expect(pages[0]!.nextLink).toMatch(/^Readings\?.*%24skiptoken=250$/);
    expect(pages[1]!.url.startsWith(`${cap().v4}Readings?`)).toBe(true);
  });

  it('a partial last page ends the read without an extra request', async () => {
    const od = v4Client(cap());
    const pages: Page<Reading>[] = [];
    for await (const page of od.from<Reading>('Readings').filter((f) => f.le('seq', 600)).orderBy('seq desc').pages()) pages.push(page);
    expect(pages.map((p) => p.value.length)).toEqual([250, 250, 100]);
    expect(pages.flatMap((p) => p.value.map((r) => r.seq))).toEqual(Array.from({ length: 600 }, (_, i) => 600 - i));
  });

  it('$top above the page size is still paged by the server, and sluice follows to exactly $top rows', async () => {
    const rows = await v4Client(cap()).from<Reading>('Readings').orderBy('seq').top(700).select('seq').list();
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 700 }, (_, i) => i + 1));
  });
});

describe('CAP v4 quirks (pinned)', () => {
  it('arithmetic operators in $filter are refused with 400 (OData 4.01 5.1.1.2 defines add/sub/mul/div/mod)', async () => {
    const od = v4Client(cap());
    const err = await od.from<Reading>('Readings').filter((f) => f.gt(f.add('seq', 1), 4999)).list().catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'PageError', status: 400 });
    await expect(od.from<Reading>('Readings').filter((f) => f.gt(f.add('seq', 1), 4999)).countOnly()).rejects.toBeInstanceOf(ODataError);
  });

  it('a "+" for a space is a 400, %20 works (sluice always writes %20)', async () => {
    const plus = await rawGet(`${cap().v4}Suppliers?$filter=name+eq+'Acme+Valves'`);
    expect(plus.status).toBe(400);
    const query = v4Client(cap()).from('Suppliers').filter((f) => f.eq('name', 'Acme Valves'));
    expect(query.toURL()).not.toContain('+');
    expect((await query.list()).length).toBe(1);
  });
});
