import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import { ConfigError, createClient, resolveURL, URLNormalization } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();

describe('API mode: dot segments after joining (RFC 3986 5.2.4), never above the base path', () => {
  it('a path that climbs above the base is a ConfigError and nothing is sent', async () => {
    const server = track(await startServer((req, res) => sendJSON(res, 200, { url: req.url })));
    const c = track(createClient({ baseURL: `${server.origin}/v1` }));
    for (const path of ['../admin', 'users/../../admin', '%2e%2e/admin', '.%2E/admin', '/../admin', 'a/./../../x', '..\\admin']) {
      await expect(c.get(path), path).rejects.toBeInstanceOf(ConfigError);
    }
    expect(server.requests.length).toBe(0);
  });

  it('dot segments inside the base path are removed before sending', async () => {
    const server = track(await startServer((req, res) => sendJSON(res, 200, { url: req.url })));
    const c = track(createClient({ baseURL: `${server.origin}/api/v1?sap-client=100` }));
    expect(await c.getJSON('users/../orders?x=1')).toEqual({ url: '/api/v1/orders?sap-client=100&x=1' });
    expect(await c.getJSON('./a/./b/')).toEqual({ url: '/api/v1/a/b/?sap-client=100' });
    expect(await c.getJSON('a/b/..')).toEqual({ url: '/api/v1/a/?sap-client=100' });
    // Dots that are not whole segments, and dots in the query, stay.
    expect(await c.getJSON('v2.0/..x/file.json?p=../q')).toEqual({ url: '/api/v1/v2.0/..x/file.json?sap-client=100&p=../q' });
  });

  it('resolveURL gives the same answer', () => {
    const options = { baseURL: 'https://h/custom', urlNormalization: URLNormalization.API };
    expect(resolveURL(options, 'a/../b').url).toBe('https://h/custom/b');
    expect(() => resolveURL(options, '../other-api/x')).toThrow(/climbs above the base path/);
  });
});
