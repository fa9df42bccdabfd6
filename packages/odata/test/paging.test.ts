import type { SluiceEvent } from '@sluice/core';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { ODataFormatError, PageError, PagingError, type StreamItem } from '../src/index.js';
import { client, collect, ids, json, records, serve } from './helpers.js';

describe('next links', () => {
  it('resolves a relative next link against the context URL, itself relative to $metadata (nested paths)', async () => {
    // OData JSON Format 4.01 section 4.6: relative to the context URL, not to the request URL.
    const server = await serve({
      '/svc/Customers(1)/Orders': (res) => json(res, {
        '@odata.context': '$metadata#Customers(1)/Orders', value: records(1, 2), '@odata.nextLink': 'Customers(1)/Orders?$skiptoken=2',
      }),
      '/svc/Customers(1)/Orders?$skiptoken=2': (res) => json(res, {
        '@odata.context': '$metadata#Customers(1)/Orders', value: records(3, 4), '@odata.nextLink': 'Customers(1)/Orders?$skiptoken=4',
      }),
      // No context URL: the request URL is the base.
      '/svc/Customers(1)/Orders?$skiptoken=4': (res) => json(res, { value: records(5, 5), '@odata.nextLink': 'Orders?$skiptoken=5' }),
      '/svc/Customers(1)/Orders?$skiptoken=5': (res) => json(res, { value: records(6, 6) }),
    });
    const rows = await client(server).from('Customers').key(1).navMany<{ ID: number }>('Orders').list();
    expect(rows.map((r) => r.ID)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(server.requests.map((r) => r.url)).toEqual([
      '/svc/Customers(1)/Orders', '/svc/Customers(1)/Orders?$skiptoken=2', '/svc/Customers(1)/Orders?$skiptoken=4', '/svc/Customers(1)/Orders?$skiptoken=5',
    ]);
  });

  it('resolves pages() next links the same way', async () => {
    let origin = '';
    const server = await serve({
      '/svc/Customers(1)/Orders': (res) => json(res, { '@odata.context': `${origin}/svc/$metadata#Customers(1)/Orders`, value: records(1, 1), '@odata.nextLink': 'Customers(1)/Orders?p=2' }),
      '/svc/Customers(1)/Orders?p=2': (res) => json(res, { value: records(2, 2) }),
    });
    origin = server.origin;
    const got: number[] = [];
    for await (const page of client(server).from('Customers').key(1).navMany<{ ID: number }>('Orders').pages()) got.push(...page.value.map((r) => r.ID));
    expect(got).toEqual([1, 2]);
  });

  it('ends with PagingError on a next link that is not a string, in v4 and v2', async () => {
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 2), '@odata.nextLink': 42 }),
      '/svc/Q': (res) => json(res, { d: { results: records(1, 1), __next: { uri: 'x' } } }),
    });
    const items = await collect(client(server).from<{ ID: number }>('P').stream());
    expect(ids(items)).toEqual([1, 2]);
    expect(items.at(-1)!.error).toBeInstanceOf(PagingError);
    expect((items.at(-1)!.error as PagingError).reason).toBe('invalid-next-link');
    const v2 = client(server, { version: '2.0' });
    await expect(v2.from('Q').list()).rejects.toMatchObject({ reason: 'invalid-next-link' });
  });

  it('stops a server that links back to an earlier page or to itself, never repeating a record', async () => {
    let origin = '';
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 2), '@odata.nextLink': `${origin}/svc/P?p=2` }),
      '/svc/P?p=2': (res) => json(res, { value: records(3, 4), '@odata.nextLink': `${origin}/svc/P` }),
      '/svc/S': (res) => json(res, { value: records(1, 1), '@odata.nextLink': 'S' }),
    });
    origin = server.origin;
    for (const prefetch of [true, false]) {
      const items = await collect(client(server).from<{ ID: number }>('P').stream({ prefetch }));
      expect(ids(items)).toEqual([1, 2, 3, 4]);
      expect((items.at(-1)!.error as PagingError).reason).toBe('repeated-next-link');
    }
    await expect(client(server).from('S').list()).rejects.toMatchObject({ reason: 'repeated-next-link', pages: 1 });
    const pages: number[][] = [];
    const error = await (async () => {
      for await (const page of client(server).from<{ ID: number }>('P').pages()) pages.push(page.value.map((r) => r.ID));
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PagingError);
    expect(pages).toEqual([[1, 2], [3, 4]]);
    expect(server.requests.map((r) => r.url).filter((u) => u === '/svc/S')).toHaveLength(1);
  });

  it('stops a loop with a long period: back to page 1 after 300 pages, or to page 150 (the seen links outgrow their first table)', async () => {
    const PAGES = 300;
    for (const back of ['P', 'P?p=150']) {
      const routes = Object.fromEntries(Array.from({ length: PAGES }, (_, i) => [
        i === 0 ? '/svc/P' : `/svc/P?p=${i + 1}`,
        (res: ServerResponse) => json(res, { value: records(i + 1, i + 1), '@odata.nextLink': i + 1 === PAGES ? back : `P?p=${i + 2}` }),
      ]));
      const server = await serve(routes);
      const items = await collect(client(server).from<{ ID: number }>('P').stream());
      expect(ids(items)).toEqual(Array.from({ length: PAGES }, (_, i) => i + 1));
      expect(items.at(-1)!.error).toMatchObject({ reason: 'repeated-next-link', pages: PAGES });
      expect(server.requests).toHaveLength(PAGES);
    }
  });

  it('bounds the pages with maxPages (client option or per read)', async () => {
    const server = await serve(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [
      i === 0 ? '/svc/P' : `/svc/P?p=${i}`, (res) => json(res, { value: records(i + 1, i + 1), '@odata.nextLink': `P?p=${i + 1}` }),
    ])));
    const items: StreamItem<{ ID: number }>[] = await collect(client(server, { maxPages: 3 }).from<{ ID: number }>('P').stream());
    expect(ids(items)).toEqual([1, 2, 3]);
    expect(items.at(-1)!.error).toMatchObject({ reason: 'max-pages', pages: 3 });
    await expect(client(server).from('P').list({ maxPages: 2 })).rejects.toMatchObject({ reason: 'max-pages' });
  });

  it('keeps the service URL\'s query options on every request, next links included', async () => {
    const server = await serve({
      '/svc/?sap-client=100': (res) => json(res, { d: { EntitySets: ['P'] } }, { dataserviceversion: '2.0' }),
      '/svc/P?$top=5&sap-client=100': (res) => json(res, { d: { results: records(1, 1), __next: 'P?$skiptoken=1' } }),
      '/svc/P?$skiptoken=1&sap-client=100': (res) => json(res, { d: { results: records(2, 2) } }),
      '/svc/P/$count?sap-client=100': (res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end('2'); },
    });
    const od = client(server, { serviceURL: `${server.origin}/svc?sap-client=100`, version: 'auto' });
    expect((await od.from<{ ID: number }>('P').top(5).list()).map((r) => r.ID)).toEqual([1, 2]);
    expect(od.version).toBe('2.0');
    expect(await od.from('P').countOnly()).toBe(2);
    expect(server.requests.every((r) => r.url.endsWith('sap-client=100'))).toBe(true);
  });
});

describe('a response that is not a collection', () => {
  it('is an ODataFormatError at once, not a broken body to resume', async () => {
    const server = await serve({ '/svc/P': (res) => json(res, { ID: 1 }) });
    const error = await client(server, { pageRetries: 3 }).from('P').list().catch((e: unknown) => e);
    expect((error as PageError).cause).toBeInstanceOf(ODataFormatError);
    expect((error as PageError).willRetry).toBe(false);
    expect(server.requests).toHaveLength(1);
  });
});

describe('version detection without version headers', () => {
  it('tells v2 from v4 by the service document, and says so when it is neither', async () => {
    const server = await serve({
      '/svc/': (res) => json(res, { '@odata.context': '$metadata', value: [{ name: 'P', url: 'P' }] }),
      '/v2/': (res) => json(res, { d: { EntitySets: ['P'] } }),
      '/login/': (res) => { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>Logon</html>'); },
    });
    const detect = (path: string) => client(server, { serviceURL: `${server.origin}${path}`, version: 'auto' });
    // ready() resolves to the version, which the client then reports as `version`.
    const v4 = detect('/svc/');
    expect(v4.version).toBeUndefined();
    expect(await v4.ready()).toBe('4.0');
    expect(v4.version).toBe('4.0');
    expect(await detect('/v2/').ready()).toBe('2.0');
    expect(server.requests.some((r) => r.url.includes('$metadata'))).toBe(false);
    await expect(detect('/login/').ready()).rejects.toThrow(/detect the OData version.*\$metadata could not be read/);
  });
});

const EDMX = (edmxVersion: string, dsv = '') =>
  `<?xml version="1.0"?><edmx:Edmx Version="${edmxVersion}" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx"><edmx:DataServices${dsv ? ` m:DataServiceVersion="${dsv}" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"` : ''}>` +
  '<Schema Namespace="S" xmlns="http://docs.oasis-open.org/odata/ns/edm"><EntityType Name="P"><Key><PropertyRef Name="ID"/></Key><Property Name="ID" Type="Edm.Int32" Nullable="false"/></EntityType>' +
  '<EntityContainer Name="C"><EntitySet Name="P" EntityType="S.P"/></EntityContainer></Schema></edmx:DataServices></edmx:Edmx>';
const ATOM = '<?xml version="1.0" encoding="utf-8"?><service xmlns="http://www.w3.org/2007/app"><workspace><collection href="P"/></workspace></service>';
const xml = (body: string) => (res: ServerResponse) => { res.writeHead(200, { 'content-type': 'application/xml' }); res.end(body); };

describe('version detection when the service root says nothing', () => {
  it('falls back to the version $metadata declares (EDMX 4.0, EDMX 1.0 with DataServiceVersion 2.0) and the event says so', async () => {
    const server = await serve({
      '/v4/': xml(ATOM), '/v4/$metadata': xml(EDMX('4.0')), '/v4/P': (res) => json(res, { value: [{ ID: 1 }] }),
      '/v2/': xml(ATOM), '/v2/$metadata': xml(EDMX('1.0', '2.0')), '/v2/P': (res) => json(res, { d: { results: [{ ID: 2 }] } }),
    });
    for (const [path, version, id] of [['/v4/', '4.0', 1], ['/v2/', '2.0', 2]] as const) {
      const od = client(server, { serviceURL: `${server.origin}${path}`, version: 'auto' });
      const events: SluiceEvent[] = [];
      od.http.events.on((e) => events.push(e));
      expect(await od.from('P').list()).toEqual([{ ID: id }]);
      expect(od.version).toBe(version);
      expect(events.filter((e) => e.type === 'odata.version.detected')).toEqual([
        expect.objectContaining({ version, from: 'metadata', detail: expect.stringContaining('$metadata declares version') }),
      ]);
    }
  });

  it('with loadMetadata the version comes from $metadata, reported once', async () => {
    const server = await serve({ '/v4/$metadata': xml(EDMX('4.0')), '/v4/P': (res) => json(res, { value: [{ ID: 1 }] }) });
    const od = client(server, { serviceURL: `${server.origin}/v4/`, version: 'auto', loadMetadata: true });
    const events: SluiceEvent[] = [];
    od.http.events.on((e) => events.push(e));
    expect(await od.from('P').list()).toEqual([{ ID: 1 }]);
    expect(events.filter((e) => e.type === 'odata.version.detected')).toEqual([expect.objectContaining({ version: '4.0', from: 'metadata' })]);
    expect(server.requests.map((r) => r.url)).toEqual(['/v4/$metadata', '/v4/P']);
  });

  it('the event names the header when the root declares one', async () => {
    const server = await serve({ '/svc/': (res) => json(res, { value: [] }, { 'odata-version': '4.0' }) });
    const od = client(server, { version: 'auto' });
    const events: SluiceEvent[] = [];
    od.http.events.on((e) => events.push(e));
    await od.ready();
    expect(events).toContainEqual(expect.objectContaining({ type: 'odata.version.detected', version: '4.0', from: 'header', detail: 'odata-version: 4.0' }));
  });
});
