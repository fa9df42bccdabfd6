import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { createClient, type Client, type Plugin } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';
import { transports } from './transports.js';

// Paths the client joins to an API base by concatenation, and paths that must take the general resolution.
const PATHS = [
  'users/42', 'users/42/', "People('russell')/Friends", 'Products(1)/Name', 'a.b/c.json', 'a//b', '', 'x-y_z~1!$&*+,;=@',
  '/users', '//users', './users', 'a/./b', 'a/b/../c', '.hidden', 'a/.well-known', 'a%20b', 'a b', 'ä', 'a?x=1', 'a#frag', 'a\\b', 'k:v', 'a/%2e/b',
];

/** What the server saw for a request to `path`, or the error's name and message. */
async function outcome(client: Client, path: string): Promise<string> {
  try {
    return (await client.getJSON<{ url: string }>(path)).url;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

/** The same through the general resolution: `client.resolve(path)` (no shortcut), sent as an absolute URL. */
async function generalOutcome(client: Client, path: string): Promise<string> {
  let url: string;
  try {
    url = client.resolve(path).url;
  } catch (error) {
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
  return outcome(client, url);
}

describe.each(transports)('requests sent directly to the transport (%s transport)', (_name, makeTransport) => {
  let server: TestServer;
  const track = closeAfterEach();
  beforeAll(async () => {
    server = await startServer((req, res, body) => sendJSON(res, 200, { url: req.url, headers: req.headers, body }));
  });
  afterAll(async () => {
    await server.close();
  });

  it('sends every path to the target the general resolution gives (client.resolve, sent as an absolute URL), or fails alike', async () => {
    const client = track(createClient({ baseURL: `${server.origin}/api/v1`, retry: false, transport: makeTransport() }));
    for (const path of PATHS) {
      const sent = await outcome(client, path);
      expect(sent, path).toBe(await generalOutcome(client, path));
      if (!sent.includes('Error')) expect(sent.startsWith('/api/v1/'), `${path} -> ${sent}`).toBe(true);
    }
    expect(await outcome(client, 'users/42')).toBe('/api/v1/users/42');
  });

  it('agrees with the general resolution on random paths built from the characters that matter', async () => {
    const client = track(createClient({ baseURL: `${server.origin}/api/v1`, retry: false, transport: makeTransport() }));
    const char = fc.constantFrom('a', 'Z', '0', '.', '/', '%', '2', 'e', ':', '?', '#', '\\', ' ', "'", '(', ')', '=', '&', 'é');
    await fc.assert(
      fc.asyncProperty(fc.array(char, { maxLength: 12 }).map((chars) => chars.join('')), async (path) => {
        expect(await outcome(client, path)).toBe(await generalOutcome(client, path));
      }),
      { numRuns: 150 },
    );
  });

  it('gives each request its own headers: a json body or request headers never leak into the defaults', async () => {
    const client = track(createClient({ baseURL: `${server.origin}/api`, retry: false, headers: { 'x-team': 'a' }, transport: makeTransport() }));
    await client.post('echo', { json: { a: 1 } });
    await client.get('echo', { headers: { 'x-once': '1' } });
    const plain = await client.getJSON<{ headers: Record<string, string> }>('echo');
    expect(plain.headers['x-team']).toBe('a');
    expect(plain.headers['content-type']).toBeUndefined();
    expect(plain.headers['x-once']).toBeUndefined();
    expect(server.requests.at(-3)!.headers['content-type']).toBe('application/json');
  });

  it('gives a plugin a copy of the headers to change, once per request', async () => {
    let n = 0;
    const stamp: Plugin = { name: 'stamp', onRequest(req) { req.headers['x-n'] = String(++n); } };
    const client = track(createClient({ baseURL: `${server.origin}/api`, retry: false, headers: { 'x-team': 'a' }, plugins: [stamp], transport: makeTransport() }));
    const first = await client.getJSON<{ headers: Record<string, string> }>('echo');
    const second = await client.getJSON<{ headers: Record<string, string> }>('echo');
    expect([first.headers['x-n'], second.headers['x-n']]).toEqual(['1', '2']);
    expect(client.options.headers['x-n']).toBeUndefined();
  });

  it('reads headers lazily but fully: every header, set-cookie values apart', async () => {
    const cookies = await startServer((_req, res) => {
      res.writeHead(200, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['content-type', 'application/json'], ['x-many', '1'], ['x-many', '2']]);
      res.end('{}');
    });
    const client = track(createClient({ baseURL: `${cookies.origin}/api`, retry: false, transport: makeTransport() }));
    const response = await client.get('x');
    expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(response.headers.get('X-Many')).toBe('1, 2');
    expect(await response.json()).toEqual({});
    await cookies.close();
  });
});
