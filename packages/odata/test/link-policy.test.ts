import { EventSink, type SluiceEvent } from '@sluice/core';
import { describe, expect, it } from 'vitest';
import { createODataClient, ForeignOriginError, LinkPolicy } from '../src/index.js';
import { client, json, records, serve } from './helpers.js';

const root = 'https://erp.example.com/odata/v4/demo/';

function policy(options: ConstructorParameters<typeof LinkPolicy>[1] = {}): { links: LinkPolicy; events: SluiceEvent[] } {
  const events: SluiceEvent[] = [];
  return { links: new LinkPolicy(root, options, new EventSink([(e) => events.push(e)])), events };
}

describe('link policy', () => {
  it('follows same-origin links exactly as written and resolves relative ones', () => {
    const { links, events } = policy();
    expect(links.resolve('next', "https://erp.example.com/odata/v4/demo/P?$skiptoken='a b'", root)).toBe("https://erp.example.com/odata/v4/demo/P?$skiptoken='a b'");
    expect(links.resolve('location', 'P(7)', root)).toBe('https://erp.example.com/odata/v4/demo/P(7)');
    // Same origin, outside the root: the caller configured this origin, so it is followed.
    expect(links.resolve('statusURL', '/jobs/1', root)).toBe('https://erp.example.com/jobs/1');
    expect(events).toEqual([]);
  });

  it('rebases a foreign-origin link under the service root onto the service origin, reporting it once per origin', () => {
    const { links, events } = policy();
    for (const kind of ['next', 'location', 'statusURL', 'resultURL', 'deltaLink'] as const) {
      expect(links.resolve(kind, "http://localhost:4004/odata/v4/demo/P?$skiptoken='x'&sap-client=100#f", root)).toBe("https://erp.example.com/odata/v4/demo/P?$skiptoken='x'&sap-client=100");
    }
    links.resolve('next', 'http://10.0.0.7:8000/odata/v4/demo/Q?access_token=secret', root);
    expect(events).toHaveLength(2);
    expect(events[0]).toEqual({
      type: 'odata.link.rebased', kind: 'next', from: expect.stringMatching(/^http:\/\/localhost:4004\/odata\/v4\/demo\/P\?\$skiptoken=.*sap-client=100$/),
      to: expect.stringMatching(/^https:\/\/erp\.example\.com\/odata\/v4\/demo\/P\?/),
    });
    expect(JSON.stringify(events[1])).not.toContain('secret');
    // Dot segments cannot climb out of the root on the way.
    expect(links.resolve('next', 'http://localhost:4004/odata/v4/demo/a/../P', root)).toBe('https://erp.example.com/odata/v4/demo/P');
  });

  it('refuses other origins outside the root, userinfo, other schemes, and everything foreign with rebaseLinks false', () => {
    const { links } = policy();
    const refused = (kind: 'next' | 'location', link: string, p = links): unknown => {
      try { p.resolve(kind, link, root); } catch (e) { return e; }
      return undefined;
    };
    expect(refused('next', 'https://evil.example/odata/v4/demo-x/P')).toBeInstanceOf(ForeignOriginError);
    expect(refused('next', 'http://localhost:4004/odata/v4/demo/../../../admin')).toBeInstanceOf(ForeignOriginError);
    expect(refused('location', 'http://user:pw@localhost/odata/v4/demo/P')).toMatchObject({ kind: 'location' });
    expect(refused('next', 'ftp://erp.example.com/odata/v4/demo/P')).toBeInstanceOf(ForeignOriginError);
    expect(refused('next', 'http://localhost:4004/odata/v4/demo/P', policy({ rebaseLinks: false }).links)).toMatchObject({ origin: 'http://localhost:4004' });
    const allowed = policy({ allowedOrigins: ['https://files.example.com'] }).links;
    expect(allowed.resolve('location', 'https://files.example.com/x', root)).toBe('https://files.example.com/x');
  });

  it('is the client\'s od.links, emitting on the client\'s event sink, and sends nothing to a refused origin', async () => {
    const foreign = await serve({ '/svc/P?p=2': (res) => json(res, { value: records(9, 9) }) });
    const server = await serve({
      '/svc/P': (res) => json(res, { value: records(1, 1), '@odata.nextLink': `${foreign.origin.replace('127.0.0.1', 'localhost')}/svc/P?p=2` }),
      '/svc/P?p=2': (res) => json(res, { value: records(2, 2) }),
    });
    const events: SluiceEvent[] = [];
    const od = client(server, { http: { retry: { maxAttempts: 1 }, onEvent: (e) => events.push(e) } });
    expect((await od.from<{ ID: number }>('P').list()).map((r) => r.ID)).toEqual([1, 2]);
    expect(foreign.requests).toHaveLength(0);
    expect(events.map((e) => e.type).filter((t) => t.startsWith('odata.link'))).toEqual(['odata.link.rebased']);
    expect(od.links).toBeInstanceOf(LinkPolicy);
    expect(() => createODataClient({ serviceURL: root, rebaseLinks: 'yes' as never })).toThrow(/rebaseLinks/);
  });

  it('report(): a Location sluice only hands back is rebased like a next link, and a foreign one is given back unchanged', () => {
    const { links, events } = policy();
    expect(links.report('location', 'http://localhost:4004/odata/v4/demo/P(7)', root)).toBe('https://erp.example.com/odata/v4/demo/P(7)');
    expect(links.report('location', 'P(8)', root)).toBe('https://erp.example.com/odata/v4/demo/P(8)');
    expect(links.report('location', 'https://cdn.example.net/files/7', root)).toBe('https://cdn.example.net/files/7');
    expect(() => links.resolve('location', 'https://cdn.example.net/files/7', root)).toThrow(ForeignOriginError);
    expect(events).toHaveLength(1);
  });
});
