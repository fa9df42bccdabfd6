import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { ConfigError, createClient } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();

describe('headers in every shape', () => {
  it('a Headers instance, pairs and a Map are sent, at client and request level', async () => {
    const server = track(await startServer((req, res) => sendJSON(res, 200, req.headers)));
    const c = track(createClient({ baseURL: `${server.origin}/api`, headers: new Headers({ 'X-Client': 'c1' }) }));
    const fromHeaders = await c.getJSON<Record<string, string>>('a', { headers: new Headers({ 'X-Trace': 't1' }) });
    expect(fromHeaders).toMatchObject({ 'x-client': 'c1', 'x-trace': 't1' });
    const fromPairs = await c.getJSON<Record<string, string>>('b', { headers: [['X-Trace', 't2'], ['X-Tag', 'a'], ['x-tag', 'b']] });
    expect(fromPairs).toMatchObject({ 'x-client': 'c1', 'x-trace': 't2', 'x-tag': 'a, b' });
    const fromMap = await c.getJSON<Record<string, string>>('c', { headers: new Map([['X-Client', 'override']]) });
    expect(fromMap['x-client']).toBe('override');
  });

  it('pair client headers work too', async () => {
    const server = track(await startServer((req, res) => sendJSON(res, 200, req.headers)));
    const c = track(createClient({ baseURL: `${server.origin}/api`, headers: [['X-Team', 'data']] }));
    expect(await c.getJSON('x')).toMatchObject({ 'x-team': 'data' });
  });

  it('rejects malformed pairs and values with ConfigError', async () => {
    expect(() => createClient({ headers: [['x-a'] as unknown as [string, string]] })).toThrow(ConfigError);
    expect(() => createClient({ headers: [['bad name', 'v']] })).toThrow(ConfigError);
    expect(() => createClient({ headers: [['x-a', 'v\r\nx-b: 1']] })).toThrow(ConfigError);
    const c = createClient({ baseURL: 'http://127.0.0.1:9/api' });
    await expect(c.get('x', { headers: [['x-a', 1 as unknown as string]] })).rejects.toBeInstanceOf(ConfigError);
    await c.close();
  });
});
