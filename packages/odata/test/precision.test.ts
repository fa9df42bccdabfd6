import type { SluiceEvent } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { createODataClient } from '../src/index.js';
import { quoteExactNumbers } from '../src/read/exact-numbers.js';
import { itemEdmx } from './fixtures/item-edmx.js';
import { json, serve } from './helpers.js';

const EDMX = itemEdmx();

// What CAP without its IEEE754Compatible feature flag answers: numbers, and a content type without the parameter.
const BODY = '{"@odata.context":"$metadata#Items","value":[' +
  '{"ID":9007199254740993,"Price":123456789012345678.1234,"Ratio":0.5,"Qty":3,"Note":"a \\"9007199254740993\\" b"},' +
  '{"ID":2,"Price":1.10,"Ratio":1e-7,"Qty":-4,"Note":"x:1"}]}';
const ENTITY = '{"@odata.context":"$metadata#Items/$entity","ID":9007199254740995,"Price":0.3000000000000000444,"Ratio":2.5,"Qty":1}';
const PLAIN = { 'content-type': 'application/json;odata.metadata=minimal', 'odata-version': '4.0' };
const PROMISED = { 'content-type': 'application/json;odata.metadata=minimal;IEEE754Compatible=true', 'odata-version': '4.0' };

function metadata(res: import('node:http').ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' });
  res.end(EDMX);
}

describe('quoteExactNumbers', () => {
  it('quotes declared properties at the record depth and unsafe integers anywhere, never keys or strings', () => {
    const text = '[{"Price":1.50,"n":{"Price":2.5},"s":"\\"Price\\":3","big":[12345678901234567890],"Qty":-7e2}]';
    expect(quoteExactNumbers(text, 2, new Set(['Price', 'Qty']))).toBe(
      '[{"Price":"1.50","n":{"Price":2.5},"s":"\\"Price\\":3","big":["12345678901234567890"],"Qty":"-7e2"}]',
    );
    expect(quoteExactNumbers('{"a":1,"b":9007199254740991}', 1, undefined)).toBe('{"a":1,"b":9007199254740991}');
    expect(quoteExactNumbers('{"a":-9007199254740993}', 1, undefined)).toBe('{"a":"-9007199254740993"}');
  });
});

describe('services that ignore IEEE754Compatible=true', () => {
  it('reads Int64 and Decimal from their digits when the content type lacks IEEE754Compatible, and says so once', async () => {
    const server = await serve({
      '/svc/$metadata': metadata,
      '/svc/Items': (res) => json(res, BODY, PLAIN),
      '/svc/Items(2)': (res) => json(res, ENTITY, PLAIN),
    });
    const events: SluiceEvent[] = [];
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true, http: { retry: false } });
    od.http.events.on((e) => { if (e.type.startsWith('odata.precision')) events.push(e); });
    const items = await od.from<Record<string, unknown>>('Items').list();
    expect(items[0]).toMatchObject({ ID: '9007199254740993', Price: '123456789012345678.1234', Ratio: 0.5, Qty: 3, Note: 'a "9007199254740993" b' });
    expect(items[1]).toMatchObject({ ID: '2', Price: '1.10', Ratio: 1e-7, Qty: -4 });
    const streamed: unknown[] = [];
    for await (const item of od.from<Record<string, unknown>>('Items').stream()) streamed.push(item.value);
    expect(streamed).toEqual(items);
    const one = await od.from<Record<string, unknown>>('Items').key(2).get();
    expect(one).toMatchObject({ ID: '9007199254740995', Price: '0.3000000000000000444', Ratio: 2.5, Qty: 1 });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'odata.precision.unsafe', reason: 'content-type' });
    await od.close();
  });

  it('without $metadata, integers a double cannot hold still arrive exact', async () => {
    const server = await serve({ '/svc/Items': (res) => json(res, BODY, PLAIN) });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    const [first] = await od.from<Record<string, unknown>>('Items').list();
    expect(first!['ID']).toBe('9007199254740993');
    await od.close();
  });

  it('a declared Int64 arriving as a number under a content type that promises strings is reported, and later answers are exact', async () => {
    const server = await serve({
      '/svc/$metadata': metadata,
      '/svc/Items': (res) => json(res, BODY, PROMISED),
    });
    const events: SluiceEvent[] = [];
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true, http: { retry: false } });
    od.http.events.on((e) => { if (e.type.startsWith('odata.precision')) events.push(e); });
    const first = await od.from<Record<string, unknown>>('Items').list();
    // The first answer was parsed before anything was known: JSON.parse rounded it.
    expect(typeof first[0]!['ID']).toBe('number');
    expect(events).toEqual([expect.objectContaining({ reason: 'number', detail: expect.stringContaining('Item.ID (Edm.Int64)') })]);
    const second = await od.from<Record<string, unknown>>('Items').list();
    expect(second[0]).toMatchObject({ ID: '9007199254740993', Price: '123456789012345678.1234' });
    expect(events).toHaveLength(1);
    await od.close();
  });

  it('streamBatches() is guarded too, whether the first record was parsed while scanning or after it', async () => {
    const server = await serve({
      '/svc/$metadata': metadata,
      '/svc/Items': (res) => json(res, BODY, PROMISED),
    });
    // A record limit under 64 KiB turns off the scanner's speculative parse: records are parsed when handed out.
    for (const maxRecordBytes of [undefined, 1000]) {
      const events: SluiceEvent[] = [];
      const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', loadMetadata: true, maxRecordBytes, http: { retry: false } });
      od.http.events.on((e) => { if (e.type.startsWith('odata.precision')) events.push(e); });
      const read = async (): Promise<Record<string, unknown>[]> => {
        const rows: Record<string, unknown>[] = [];
        for await (const batch of od.from<Record<string, unknown>>('Items').streamBatches()) rows.push(...batch.value!);
        return rows;
      };
      expect(typeof (await read())[0]!['ID']).toBe('number');
      expect(events).toEqual([expect.objectContaining({ reason: 'number', detail: expect.stringContaining('Item.ID (Edm.Int64)') })]);
      expect((await read())[0]).toMatchObject({ ID: '9007199254740993', Price: '123456789012345678.1234' });
      expect(events).toHaveLength(1);
      await od.close();
    }
  });

  it('nothing changes when the service keeps its promise or numbers were asked for', async () => {
    const server = await serve({ '/svc/Items': (res) => json(res, BODY.replace('9007199254740993,', '"9007199254740993",'), PROMISED) });
    const events: SluiceEvent[] = [];
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    od.http.events.on((e) => { if (e.type.startsWith('odata.precision')) events.push(e); });
    const [first] = await od.from<Record<string, unknown>>('Items').list();
    expect(first!['ID']).toBe('9007199254740993');
    expect(typeof first!['Price']).toBe('number');
    const asNumbers = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', largeNumbers: 'number', http: { retry: false } });
    asNumbers.http.events.on((e) => { if (e.type.startsWith('odata.precision')) events.push(e); });
    await asNumbers.from('Items').list();
    expect(events).toEqual([]);
    await od.close();
    await asNumbers.close();
  });
});
