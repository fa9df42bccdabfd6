import { AbortError, DeadlineError, TimeoutError } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { ODataError, PageError } from '../src/index.js';
import { client, collect, ids, json, records, serve } from './helpers.js';

describe('per-read options', () => {
  it('sends per-read headers on every request of the read, next pages and $count included', async () => {
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 1), '@odata.nextLink': 'P?p=2' }),
      '/svc/P?p=2': (res) => json(res, { value: records(2, 2) }),
      '/svc/P(1)': (res) => json(res, { ID: 1 }),
      '/svc/P/$count': (res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('2'); },
    });
    const od = client(server);
    const headers = { 'x-trace': 't-1', accept: 'text/html' };
    await od.from('P').list({ headers });
    await od.from('P').key(1).get({ headers });
    await od.from('P').countOnly({ headers });
    for await (const _ of od.from('P').pages({ headers })) { /* every page */ }
    expect(server.requests.map((r) => r.headers['x-trace'])).toEqual(Array(6).fill('t-1'));
    // Format negotiation stays the client's: the caller cannot break the response format.
    expect(server.requests[0]!.headers['accept']).toContain('application/json');
    await od.from('P').list();
    expect(server.requests.at(-1)!.headers['x-trace']).toBeUndefined();
  });

  it('takes a per-read timeout and signal on get, countOnly, list and pages', async () => {
    const server = await serve({
      '/svc/Slow(1)': () => { /* never answers */ },
      '/svc/Slow': () => { /* never answers */ },
    });
    const od = client(server);
    await expect(od.from('Slow').key(1).get({ timeout: 50 })).rejects.toBeInstanceOf(TimeoutError);
    const listed = await od.from('Slow').list({ timeout: 50 }).catch((e: unknown) => e);
    expect((listed as PageError).cause).toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = od.from('Slow').key(1).get({ signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    const counting = od.from('Slow').countOnly({ signal: AbortSignal.abort() });
    await expect(counting).rejects.toBeInstanceOf(AbortError);
  });

  it('reports every read failure with the same ODataError: get, countOnly, list and pages', async () => {
    const fail = (res: import('node:http').ServerResponse): void => {
      res.writeHead(404, { 'content-type': 'application/json', 'sap-request-id': 'abc' });
      res.end(JSON.stringify({ error: { code: '404', message: { lang: 'en', value: 'gone' } } }));
    };
    const server = await serve({ '/svc/X(1)': fail, '/svc/X/$count': fail, '/svc/X': fail });
    const od = client(server);
    const errors = [
      await od.from('X').key(1).get().catch((e: unknown) => e),
      await od.from('X').countOnly().catch((e: unknown) => e),
      ((await od.from('X').list().catch((e: unknown) => e)) as PageError).odataError,
      ((await (async () => { for await (const _ of od.from('X').pages()) { /* none */ } })().catch((e: unknown) => e)) as PageError).odataError,
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(ODataError);
      expect(error).toMatchObject({ status: 404, code: '404', odataMessage: 'gone', requestId: 'abc' });
    }
  });
});

describe('per-read deadline', () => {
  it('bounds the whole read across pages; a passed deadline is final, never resumed', async () => {
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 2), '@odata.nextLink': 'P?p=2' }),
      // Headers and half a record, then nothing: a body that would be resumed if it broke.
      '/svc/P?p=2': (res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.write('{"value":[{"ID":3},{"ID"'); },
      '/svc/One(1)': () => { /* never answers */ },
    });
    const od = client(server, { pageRetries: 3 });
    const items = await collect(od.from<{ ID: number }>('P').stream({ deadline: 300 }));
    expect(ids(items)).toEqual([1, 2, 3]);
    const error = items.at(-1)!.error as PageError;
    expect(error.willRetry).toBe(false);
    expect(error.cause).toBeInstanceOf(DeadlineError);
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/P', '/svc/P?p=2']);
    await expect(od.from('One').key(1).get({ deadline: new Date(Date.now() + 100) })).rejects.toBeInstanceOf(DeadlineError);
    expect(() => od.from('P').stream({ deadline: -1 })[Symbol.asyncIterator]()).toThrow(/deadline/);
  });
});
