import { describe, expect, it } from 'vitest';
import { createODataClient, RecordDecodeError } from '../src/index.js';
import type { PropertyInfo } from '../src/metadata/model.js';
import { decodeV2Date, decodeV2Time } from '../src/v2/values.js';
import { edmxDocument, propertiesXML } from '@sluice/testkit';
import { utcText } from '../src/v2/utc-text.js';
import { collect, json, serve } from './helpers.js';

const EDMX = edmxDocument('2.0', 'S', [
  '<EntityType Name="Event"><Key><PropertyRef Name="ID"/></Key>',
  propertiesXML({
    ID: 'Edm.Int32!', Note: 'Edm.String', At: 'Edm.DateTime', Local: 'Edm.DateTimeOffset', Day: 'Edm.DateTime sap:display-format="Date"',
    Stamp: 'Edm.DateTimeOffset Precision="7"', Opens: 'Edm.Time',
  }),
  '<NavigationProperty Name="Next" Relationship="S.EventNext" FromRole="A" ToRole="B"/></EntityType>',
  '<Association Name="EventNext"><End Role="A" Type="S.Event" Multiplicity="1"/><End Role="B" Type="S.Event" Multiplicity="0..1"/></Association>',
  '<EntityContainer Name="C" m:IsDefaultEntityContainer="true"><EntitySet Name="Events" EntityType="S.Event"/>',
  '<AssociationSet Name="EventNextSet" Association="S.EventNext"><End Role="A" EntitySet="Events"/><End Role="B" EntitySet="Events"/></AssociationSet></EntityContainer>',
].join(''));

const row = {
  ID: 1, Note: '/Date(0)/', At: '/Date(1577840401000)/', Local: '/Date(1577840401000+0060)/',
  Day: '/Date(1582934400000)/', Stamp: '/Date(1577840401000+0000)/', Opens: 'PT8H5M0.5S',
  Next: { ID: 2, Note: '/Date(5)/', At: '/Date(0)/', Local: '/Date(0-0120)/' },
};

describe('v2 /Date(...)/ values', () => {
  it('decodes by property type when $metadata is known: ISO text as v4 writes it, Edm.String left alone, offsets kept', async () => {
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX); },
      '/svc/Events?$expand=Next': (res) => json(res, { d: { results: [row] } }, { dataserviceversion: '2.0' }),
      '/svc/Events(1)': (res) => json(res, { d: row }, { dataserviceversion: '2.0' }),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    const [event] = await od.from<Record<string, unknown>>('Events').expand('Next').list();
    expect(event!['Note']).toBe('/Date(0)/');
    // Precision 0 (none declared): no fraction, as a v4 service writes it; Precision 7: milliseconds.
    expect(event!['At']).toBe('2020-01-01T01:00:01Z');
    expect(event!['Stamp']).toBe('2020-01-01T01:00:01.000Z');
    // The instant is UTC; the offset (minutes, [MS-ODATA]) says how it was written locally.
    expect(event!['Local']).toBe('2020-01-01T02:00:01+01:00');
    // sap:display-format="Date": a calendar date, as v4's Edm.Date; Edm.Time: a time of day, as v4's TimeOfDay.
    expect(event!['Day']).toBe('2020-02-29');
    expect(event!['Opens']).toBe('08:05:00.5');
    expect(event!['Next']).toEqual({ ID: 2, Note: '/Date(5)/', At: '1970-01-01T00:00:00Z', Local: '1969-12-31T22:00:00-02:00' });
    const one = await od.from<Record<string, unknown>>('Events').key(1).get();
    expect(one['Note']).toBe('/Date(0)/');
    expect(one['Local']).toBe('2020-01-01T02:00:01+01:00');
    await od.close();
  });

  it("dates: 'Date' gives Date objects for instants, and loads $metadata first to know them", async () => {
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX); },
      '/svc/Events?$expand=Next': (res) => json(res, { d: { results: [row] } }, { dataserviceversion: '2.0' }),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', dates: 'Date' });
    const [event] = await od.from<Record<string, unknown>>('Events').expand('Next').list();
    expect(event!['At']).toEqual(new Date('2020-01-01T01:00:01.000Z'));
    expect(event!['Local']).toEqual(new Date('2020-01-01T01:00:01.000Z'));
    expect(event!['Day']).toBe('2020-02-29');
    expect(event!['Note']).toBe('/Date(0)/');
    expect((event!['Next'] as Record<string, unknown>)['At']).toEqual(new Date(0));
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/$metadata', '/svc/Events?$expand=Next']);
    await od.close();
  });

  it('without $metadata decodes every /Date()/ string, still keeping offsets', async () => {
    const server = await serve({ '/svc/Events': (res) => json(res, { d: { results: [row] } }) });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0' });
    const [event] = await od.from<Record<string, unknown>>('Events').list();
    expect(event!['Note']).toBe('1970-01-01T00:00:00.000Z');
    expect(event!['Local']).toBe('2020-01-01T02:00:01.000+01:00');
    expect(event!['Opens']).toBe('PT8H5M0.5S');
    expect(server.requests.map((r) => r.url)).toEqual(['/svc/Events']);
    await od.close();
  });

  it('reads offsets in minutes, or hhmm where only that is a whole quarter hour', () => {
    const cases = [['0+0000', '1970-01-01T00:00:00.000Z'], ['0+0330', '1970-01-01T05:30:00.000+05:30'], ['0+0100', '1970-01-01T01:00:00.000+01:00'],
      ['-86400000', '1969-12-31T00:00:00.000Z'], ['abc', '/Date(abc)/']];
    for (const [wire, text] of cases) expect(decodeV2Date(`/Date(${wire!})/`)).toBe(text);
  });

  it('writes instants as toISOString() does, leap days, years before 1970 and the ends of 0000-9999 included', () => {
    const first = -62_167_219_200_000;
    const last = 253_402_300_799_999;
    const edges = [first, last, first - 1, last + 1, 0, -1, 1, -86_400_000, -86_399_999, 951_782_400_000, 951_868_800_000, 4_107_542_399_999, 8.64e15, -8.64e15];
    // 200,000 instants across the whole range, each at another time of day.
    const sweep = Array.from({ length: 200_000 }, (_, k) => first + k * 1_578_011_503);
    for (const ms of [...edges, ...sweep]) expect(utcText(ms), String(ms)).toBe(new Date(ms).toISOString());
    expect(decodeV2Date('/Date(-62135596800001)/')).toBe('0000-12-31T23:59:59.999Z');
  });

  it('writes instants of the same day, of days back and forth and across midnight as toISOString() does (the day text is reused)', () => {
    const start = 1_577_840_401_000;
    const runs = Array.from({ length: 5000 }, (_, k) => start + k * 3_601_000);
    const zigzag = Array.from({ length: 5000 }, (_, k) => (k % 2 === 0 ? start + k * 7_777 : 951_868_799_999 - k * 86_400_013));
    const midnight = [-1, 0, 86_399_999, 86_400_000, 951_868_799_999, 951_868_800_000, 951_782_399_999];
    for (const ms of [...runs, ...zigzag, ...midnight]) expect(utcText(ms), String(ms)).toBe(new Date(ms).toISOString());
  });

  it('reads the plain /Date(ms)/ form and its neighbours exactly as the full pattern does', () => {
    const cases: [string, string][] = [['/Date(0)/', '1970-01-01T00:00:00.000Z'], ['/Date(1577840401000)/', '2020-01-01T01:00:01.000Z'],
      ['/Date(253402300799999)/', '9999-12-31T23:59:59.999Z'], ['/Date(8640000000000000)/', '+275760-09-13T00:00:00.000Z'],
      ['/Date(1e3)/', '/Date(1e3)/'], ['/Date()/', '/Date()/'], ['/Date(12)', '/Date(12)'], ['/Date(12)/x', '/Date(12)/x'], ['/Date( 1)/', '/Date( 1)/'],
      ['/Date(1577840401000+0060)/', '2020-01-01T02:00:01.000+01:00']];
    for (const [wire, text] of cases) expect(decodeV2Date(wire), wire).toBe(text);
  });

  it('reads Edm.Time durations as times of day', () => {
    const cases = { PT13H45M10S: '13:45:10', PT0S: '00:00:00', PT9H: '09:00:00', 'PT1H2M3.1234567S': '01:02:03.1234567', P1D: 'P1D' };
    for (const [wire, text] of Object.entries(cases)) expect(decodeV2Time(wire)).toBe(text);
  });
});

const CSDL4 = edmxDocument('4.0', 'S', [
  `<ComplexType Name="Window">${propertiesXML({ From: 'Edm.DateTimeOffset', Days: 'Collection(Edm.Date)' })}</ComplexType>`,
  '<EntityType Name="Event"><Key><PropertyRef Name="ID"/></Key>',
  propertiesXML({ ID: 'Edm.Int32!', At: 'Edm.DateTimeOffset', Day: 'Edm.Date', Note: 'Edm.String', Window: 'S.Window', Marks: 'Collection(Edm.DateTimeOffset)' }),
  '<NavigationProperty Name="Next" Type="S.Event"/></EntityType>',
  '<EntityContainer Name="C"><EntitySet Name="Events" EntityType="S.Event"/></EntityContainer>',
].join(''));

describe('v4 instants', () => {
  const v4row = {
    ID: 1, At: '2020-01-01T01:00:01Z', Day: '2020-02-29', Note: '2020-01-01T01:00:01Z', Marks: ['1970-01-01T00:00:00Z', null],
    Window: { From: '2020-01-01T02:00:01+01:00', Days: ['2020-01-01'] }, Next: { ID: 2, At: '1970-01-01T00:00:00Z', Day: null },
  };
  const routes = {
    '/svc/$metadata': (res: import('node:http').ServerResponse) => { res.writeHead(200, { 'content-type': 'application/xml', 'odata-version': '4.0' }); res.end(CSDL4); },
    '/svc/Events?$expand=Next': (res: import('node:http').ServerResponse) => json(res, { value: [v4row] }, { 'odata-version': '4.0' }),
    '/svc/Events(1)': (res: import('node:http').ServerResponse) => json(res, v4row, { 'odata-version': '4.0' }),
  };

  it('are the ISO text the service sent by default (records as parsed)', async () => {
    const server = await serve(routes);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0' });
    const [event] = await od.from<Record<string, unknown>>('Events').expand('Next').list();
    expect(event).toEqual(v4row);
    await od.close();
  });

  it("dates: 'Date' makes Edm.DateTimeOffset values Dates, in complex values, collections and expanded entities", async () => {
    const server = await serve(routes);
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', dates: 'Date' });
    const [event] = await od.from<Record<string, unknown>>('Events').expand('Next').list();
    expect(event).toEqual({
      ...v4row, At: new Date('2020-01-01T01:00:01Z'), Marks: [new Date(0), null],
      Window: { From: new Date('2020-01-01T01:00:01Z'), Days: ['2020-01-01'] }, Next: { ID: 2, At: new Date(0), Day: null },
    });
    const one = await od.from<Record<string, unknown>>('Events').key(1).get();
    expect(one['At']).toEqual(new Date('2020-01-01T01:00:01Z'));
    expect(one['Note']).toBe('2020-01-01T01:00:01Z');
    await od.close();
  });
});

describe('v2 sap:display-format="Date" outside the years 0000-9999', () => {
  const day: PropertyInfo = { name: 'Day', type: 'Edm.DateTime', nullable: true, displayFormat: 'Date' };
  /** The day of `ms` in UTC as the v4 Edm.Date text (and the sink) writes it: a year of at least 4 digits, `-` before 0. */
  const v4Day = (ms: number): string => {
    const d = new Date(ms);
    const year = d.getUTCFullYear();
    const two = (n: number): string => String(n).padStart(2, '0');
    return `${year < 0 ? '-' : ''}${String(Math.abs(year)).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`;
  };

  it('is the day as v4 writes an Edm.Date: 10000-01-01, 0000-12-31, -0001-06-15, up to the ends of the range of instants', () => {
    const cases: [string, string][] = [
      ['253402300800000', '10000-01-01'], ['253402300799999', '9999-12-31'], ['-62167219200000', '0000-01-01'], ['-62135596800001', '0000-12-31'],
      ['-62167219200001', '-0001-12-31'], ['-62184499200000', '-0001-06-15'], ['8640000000000000', '275760-09-13'], ['-8640000000000000', '-271821-04-20'],
      ['253402300800000+0060', '10000-01-01'], ['-62184499200000-0120', '-0001-06-15'], ['8640000000000000+0060', '275760-09-13'],
    ];
    for (const [wire, text] of cases) expect(decodeV2Date(`/Date(${wire})/`, day), wire).toBe(text);
    // 100,000 instants across the whole range of instants, each at another time of day.
    const step = 172_800_000_000_017;
    for (let ms = -8.64e15; ms <= 8.64e15; ms += step / 1000) {
      const whole = Math.round(ms);
      expect(decodeV2Date(`/Date(${whole})/`, day), String(whole)).toBe(v4Day(whole));
    }
  });

  it('outside the range of instants is a TypeError naming the property and the value, on every path, never a RangeError or an Invalid Date', () => {
    const cases: [string, PropertyInfo | undefined, 'Date' | undefined][] = [
      ['/Date(8640000000000001)/', day, undefined], ['/Date(-8640000000000001)/', day, undefined], ['/Date(99999999999999999999)/', day, undefined],
      ['/Date(8640000000000001)/', { name: 'At', type: 'Edm.DateTime', nullable: true }, undefined], ['/Date(8640000000000001)/', undefined, undefined],
      ['/Date(8640000000000001)/', { name: 'At', type: 'Edm.DateTime', nullable: true }, 'Date'],
      // In range as an instant, but not its local time with the offset.
      ['/Date(8640000000000000+0060)/', { name: 'Local', type: 'Edm.DateTimeOffset', nullable: true }, undefined],
    ];
    for (const [wire, property, dates] of cases) {
      let error: unknown;
      try { decodeV2Date(wire, property, dates); } catch (e) { error = e; }
      expect(error, wire).toBeInstanceOf(TypeError);
      expect((error as Error).message).toContain(`${property?.name ?? 'value'}: "${wire}" is outside the range of instants`);
    }
  });

  it('in a read: the day beyond 9999 arrives; one outside the range fails its record with a RecordDecodeError, the others arrive', async () => {
    const rows = [{ ID: 1, Day: '/Date(253402300800000)/' }, { ID: 2, Day: '/Date(8640000000000001)/' }, { ID: 3, Day: '/Date(-62184499200000)/' }];
    const server = await serve({
      '/svc/$metadata': (res) => { res.writeHead(200, { 'content-type': 'application/xml', dataserviceversion: '2.0' }); res.end(EDMX); },
      '/svc/Events': (res) => json(res, { d: { results: rows } }, { dataserviceversion: '2.0' }),
    });
    const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '2.0', loadMetadata: true });
    const items = await collect(od.from<Record<string, unknown>>('Events').stream());
    expect(items.map((i) => i.value)).toEqual([{ ID: 1, Day: '10000-01-01' }, undefined, { ID: 3, Day: '-0001-06-15' }]);
    expect(items[1]!.error).toBeInstanceOf(RecordDecodeError);
    expect(items[1]!.error!.message).toContain('Edm.DateTime property Day: "/Date(8640000000000001)/" is outside the range of instants');
    await od.close();
  });
});
