import { describe, expect, it } from 'vitest';
import { brokenSecondPage, client, collect, ids, json, records, serve } from './helpers.js';
import { ForeignOriginError, ODataError, PageError, RecordDecodeError, type StreamItem } from '../src/index.js';

describe('stream', () => {
  it('follows next links exactly as the server wrote them', async () => {
    let origin = '';
    const next = "/svc/Products?$skiptoken='a%20b',2&sap-client=100";
    const server = await serve({
      '/svc/Products': (res) => json(res, { value: records(1, 2), '@odata.nextLink': origin + next }),
      [next]: (res) => json(res, { value: records(3, 3) }),
    });
    origin = server.origin;
    const items = await collect(client(server).from<{ ID: number }>('Products').stream());
    expect(ids(items)).toEqual([1, 2, 3]);
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/Products', next]);
  });

  it('delivers the first record before the page has fully arrived', async () => {
    let finish!: () => void;
    const released = new Promise<void>((r) => { finish = r; });
    let ended = false;
    const server = await serve({
      '/svc/Products': async (res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"value":[{"ID":1},');
        await released;
        ended = true;
        res.end('{"ID":2}]}');
      },
    });
    const seen: number[] = [];
    for await (const item of client(server).from<{ ID: number }>('Products').stream()) {
      if (item.error) throw item.error;
      seen.push(item.value.ID);
      if (seen.length === 1) {
        expect(ended).toBe(false);
        finish();
      }
    }
    expect(seen).toEqual([1, 2]);
  });

  it('prefetches the next page while the caller works on the current one, and no further', async () => {
    let origin = '';
    let page2Requested!: () => void;
    const page2 = new Promise<void>((r) => { page2Requested = r; });
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 3), '@odata.nextLink': `${origin}/svc/P?p=2` }),
      '/svc/P?p=2': (res) => { page2Requested(); json(res, { value: records(4, 6), '@odata.nextLink': `${origin}/svc/P?p=3` }); },
      '/svc/P?p=3': (res) => json(res, { value: records(7, 7) }),
    });
    origin = server.origin;
    const seen: number[] = [];
    let leftPage1At = 0;
    for await (const item of client(server).from<{ ID: number }>('P').stream()) {
      if (item.error) throw item.error;
      seen.push(item.value.ID);
      // Still on page 1: page 2 must be on its way already (this would hang without prefetch).
      if (item.value.ID === 1) await page2;
      if (item.value.ID === 3) leftPage1At = performance.now();
    }
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const page3 = server.requests.find((r) => r.url === '/svc/P?p=3')!;
    // Page 3 is requested only once the caller has moved on from page 1: at most two pages are held.
    expect(page3.at).toBeGreaterThan(leftPage1At);
  });

  it('stops all network work when the caller breaks out of the loop', async () => {
    let origin = '';
    let closed!: () => void;
    const socketClosed = new Promise<void>((r) => { closed = r; });
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 2), '@odata.nextLink': `${origin}/svc/P?p=2` }),
      '/svc/P?p=2': (res) => {
        res.on('close', () => closed());
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"value":['); // and never finishes
      },
    });
    origin = server.origin;
    let page2Started!: () => void;
    const started = new Promise<void>((r) => { page2Started = r; });
    server.server.on('request', (req) => { if (req.url === '/svc/P?p=2') page2Started(); });
    for await (const item of client(server).from<{ ID: number }>('P').stream()) {
      expect(item.value?.ID).toBe(1);
      await started;
      break;
    }
    await socketClosed;
    expect(server.requests.length).toBeLessThanOrEqual(2);
  });

  it('ends with an AbortError item when the signal aborts', async () => {
    const server = await serve({
      '/svc/P': (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"value":[{"ID":1},'); },
    });
    const controller = new AbortController();
    const items: StreamItem<{ ID: number }>[] = [];
    for await (const item of client(server).from<{ ID: number }>('P').stream({ signal: controller.signal })) {
      items.push(item);
      if (items.length === 1) controller.abort();
    }
    expect(items[0]).toEqual({ value: { ID: 1 } });
    expect(items).toHaveLength(2);
    expect(items[1]!.error).toBeInstanceOf(PageError);
    expect((items[1]!.error as PageError).willRetry).toBe(false);
    expect((items[1]!.error as PageError).cause).toMatchObject({ name: 'AbortError' });
  });

  it('turns a record that fails to decode into an error item and goes on', async () => {
    const server = await serve({
      '/svc/P': (res) => json(res, '{"value":[{"ID":1},{"ID":tru},{"ID":3}]}'),
    });
    const items = await collect(client(server).from<{ ID: number }>('P').stream());
    expect(ids(items)).toEqual([1, 3]);
    const error = items[1]!.error as RecordDecodeError;
    expect(error).toBeInstanceOf(RecordDecodeError);
    expect(error.index).toBe(1);
    expect(error.excerpt).toBe('{"ID":tru}');
  });

  it('retries a page reset mid-body in place: no record lost or repeated', async () => {
    const server = await brokenSecondPage(JSON.stringify({ value: records(3, 6) }).slice(0, 30));
    const items = await collect(client(server).from<{ ID: number }>('P').stream());
    expect(ids(items)).toEqual([1, 2, 3, 4, 5, 6]);
    const errors = items.filter((i) => i.error);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.error).toBeInstanceOf(PageError);
    expect((errors[0]!.error as PageError).willRetry).toBe(true);
    expect(server.requests.filter((r) => r.url === '/svc/P?p=2')).toHaveLength(2);
  });

  it('leaves error statuses to the core and resumes only a broken body, each counted', async () => {
    let origin = '';
    const full = JSON.stringify({ value: records(1, 4), '@odata.nextLink': '' });
    const server = await serve({
      '/svc/P': (res, _u, attempt) => (attempt === 1 ? json(res, JSON.stringify({ value: records(1, 4), '@odata.nextLink': `${origin}/svc/P?p=2` }).slice(0, full.length / 2)) : json(res, { value: records(1, 4), '@odata.nextLink': `${origin}/svc/P?p=2` })),
      '/svc/P?p=2': (res, _u, attempt) => {
        if (attempt === 1) { res.writeHead(503, { 'content-type': 'application/json' }); res.end('{"error":{"code":"Busy","message":"try later"}}'); return; }
        json(res, { value: records(5, 5) });
      },
    });
    origin = server.origin;
    const items = await collect(client(server, { http: { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 } } }).from<{ ID: number }>('P').stream());
    expect(ids(items)).toEqual([1, 2, 3, 4, 5]);
    // The truncated body is resumed by the stream (one error item); the 503 is retried by the core, unseen.
    const errors = items.filter((i) => i.error).map((i) => i.error as PageError);
    expect(errors.map((e) => e.willRetry)).toEqual([true]);
    expect(errors[0]!.cause).toBeInstanceOf(SyntaxError);
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/P', '/svc/P', '/svc/P?p=2', '/svc/P?p=2']);
  });

  it('does not multiply retries: a failing page costs the core\'s attempts, once', async () => {
    const server = await serve({
      '/svc/P': (res) => { res.writeHead(503, { 'content-type': 'application/json', 'x-request-id': 'req-42' }); res.end('{"error":{"code":"Busy","message":"down","target":"P"}}'); },
    });
    const items = await collect(client(server, { pageRetries: 3, http: { retry: { maxAttempts: 3, waitBase: 1, maxWait: 2 } } }).from('P').stream());
    expect(server.requests).toHaveLength(3);
    expect(items).toHaveLength(1);
    const error = items[0]!.error as PageError;
    expect(error.willRetry).toBe(false);
    // One error model: the page error carries the service's OData error.
    expect(error.status).toBe(503);
    expect(error.odataError).toMatchObject({ status: 503, code: 'Busy', odataMessage: 'down', target: 'P', requestId: 'req-42' });
    expect(error.cause).toBe(error.odataError);
  });

  it('gives up resuming a body that keeps breaking after pageRetries', async () => {
    const server = await serve({ '/svc/P': (res) => json(res, '{"value":[{"ID":1},{"ID"') });
    const items = await collect(client(server, { pageRetries: 2, http: { retry: { maxAttempts: 3, waitBase: 1, maxWait: 2 } } }).from<{ ID: number }>('P').stream());
    expect(items.filter((i) => i.error).map((i) => (i.error as PageError).willRetry)).toEqual([true, true, false]);
    expect(ids(items)).toEqual([1]);
    expect(server.requests).toHaveLength(3);
  });

  it('ends at once on a client error, with the OData error details', async () => {
    const server = await serve({
      '/svc/P': (res) => {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'BadFilter', message: 'Property Nope not found', target: 'Nope', details: [{ code: 'X', message: 'more' }] } }));
      },
    });
    const items = await collect(client(server).from('P').stream());
    expect(items).toHaveLength(1);
    const cause = (items[0]!.error as PageError).cause as ODataError;
    expect(cause).toBeInstanceOf(ODataError);
    expect(cause).toMatchObject({ status: 400, code: 'BadFilter', odataMessage: 'Property Nope not found', target: 'Nope', details: [{ code: 'X', message: 'more' }] });
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a next link to a foreign origin unless allowed', async () => {
    const foreign = await serve({ '/other/P?p=2': (res) => json(res, { value: records(9, 9) }) });
    const server = await serve({ '/svc/P': (res) => json(res, { value: records(1, 1), '@odata.nextLink': `${foreign.origin}/other/P?p=2` }) });
    const refused = await collect(client(server).from<{ ID: number }>('P').stream());
    expect(ids(refused)).toEqual([1]);
    expect(refused[1]!.error).toBeInstanceOf(ForeignOriginError);
    expect(foreign.requests).toHaveLength(0);
    const allowed = await collect(client(server, { allowedOrigins: [foreign.origin] }).from<{ ID: number }>('P').stream());
    expect(ids(allowed)).toEqual([1, 9]);
  });

  it('list() returns every record, surviving a retried page, and throws on data loss', async () => {
    const server = await serve({
      '/svc/P': (res, _u, attempt) => { if (attempt === 1) { res.writeHead(502); res.end(); } else json(res, { value: records(1, 3) }); },
      '/svc/Bad': (res) => json(res, '{"value":[{"ID":1},{"ID":x}]}'),
    });
    const od = client(server, { http: { retry: { maxAttempts: 2, waitBase: 1, maxWait: 2 } } });
    expect((await od.from<{ ID: number }>('P').list()).map((r) => r.ID)).toEqual([1, 2, 3]);
    await expect(od.from('Bad').list()).rejects.toBeInstanceOf(RecordDecodeError);
  });

  it('asks v4 services for IEEE754Compatible Int64/Decimal strings unless numbers are wanted', async () => {
    const server = await serve({ '/svc/P': (res) => json(res, '{"value":[{"Stock":"9007199254740993","Price":"12.34"}]}') });
    const [row] = await client(server).from<{ Stock: string }>('P').list();
    expect(row).toEqual({ Stock: '9007199254740993', Price: '12.34' });
    expect(server.requests[0]!.headers['accept']).toContain('IEEE754Compatible=true');
    await client(server, { largeNumbers: 'number' }).from('P').list();
    expect(server.requests[1]!.headers['accept']).not.toContain('IEEE754Compatible');
  });

  it('sends Prefer odata.maxpagesize when asked', async () => {
    const server = await serve({ '/svc/P': (res) => json(res, { value: [] }) });
    await client(server).from('P').list({ maxPageSize: 50 });
    expect(server.requests[0]!.headers['prefer']).toBe('odata.maxpagesize=50');
  });
});

describe('pages', () => {
  it('holds exactly one page: the next is requested only when asked for', async () => {
    let origin = '';
    const server = await serve({
      '/svc/P?$count=true': (res) => json(res, { '@odata.count': 3, value: records(1, 2), '@odata.nextLink': `${origin}/svc/P?$count=true&$skiptoken=2` }),
      '/svc/P?$count=true&$skiptoken=2': (res) => json(res, { value: records(3, 3) }),
    });
    origin = server.origin;
    const pages: number[][] = [];
    for await (const page of client(server).from<{ ID: number }>('P').count().pages()) {
      pages.push(page.value.map((r) => r.ID));
      // Nothing fetches ahead of the caller.
      expect(server.requests).toHaveLength(pages.length);
      if (pages.length === 1) {
        expect(page.count).toBe(3);
        expect(page.nextLink).toBe(`${origin}/svc/P?$count=true&$skiptoken=2`);
      }
    }
    expect(pages).toEqual([[1, 2], [3]]);
  });

  it('retries a failed page whole and throws PageError when it fails for good', async () => {
    const server = await serve({
      '/svc/P': (res, _u, attempt) => { if (attempt === 1) json(res, '{"value":[{"ID":1},'); else json(res, { value: records(1, 2) }); },
      '/svc/Q': (res) => { res.writeHead(500); res.end(); },
    });
    const od = client(server, { pageRetries: 1 });
    const got: number[] = [];
    for await (const page of od.from<{ ID: number }>('P').pages()) got.push(...page.value.map((r) => r.ID));
    expect(got).toEqual([1, 2]);
    await expect((async () => { for await (const _ of od.from('Q').pages()) { /* none */ } })()).rejects.toBeInstanceOf(PageError);
  });
});
