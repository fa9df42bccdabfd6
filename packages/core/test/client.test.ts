import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { ConfigError, createClient, DecodeError, HttpError, URLNormalization } from '@sluice/core';
import { transports } from './transports.js';

describe.each(transports)('requests and responses (%s transport)', (_name, makeTransport) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((req, res, body) => {
      const url = new URL(req.url!, 'http://x');
      switch (url.pathname) {
        case '/v1/echo':
          return sendJSON(res, 200, { method: req.method, url: req.url, headers: req.headers, body });
        case '/v1/text':
          res.writeHead(200, { 'content-type': 'text/plain' });
          return void res.end('héllo');
        case '/v1/html':
          res.writeHead(200, { 'content-type': 'text/html' });
          return void res.end('<html>login</html>');
        case '/v1/bad-json':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end('{"a":1,');
        case '/v1/empty':
          res.writeHead(204);
          return void res.end();
        case '/v1/big':
          res.writeHead(200, { 'content-type': 'application/json' });
          return void res.end(JSON.stringify({ data: 'x'.repeat(10_000) }));
        case '/v1/stream': {
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          let n = 0;
          const tick = (): void => {
            if (n++ === 5) return void res.end();
            res.write(`chunk${n};`, tick);
          };
          return tick();
        }
        case '/v1/cookies':
          res.writeHead(200, [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['content-type', 'text/plain']]);
          return void res.end('ok');
        case '/v1/missing':
          return sendJSON(res, 404, { error: 'no such thing', secret: 'never-shown-in-message' }, { 'set-cookie': 'session=abc' });
        default:
          res.writeHead(404);
          res.end();
      }
    });
  });
  afterAll(() => server.close());
  const client = () => createClient({ baseURL: `${server.origin}/v1`, transport: makeTransport(), retry: false });

  it('resolves paths against an API base with one slash', async () => {
    const c = client();
    const a = await c.getJSON<{ url: string }>('/echo');
    const b = await c.getJSON<{ url: string }>('echo');
    expect([a.url, b.url]).toEqual(['/v1/echo', '/v1/echo']);
  });

  it('sends default headers, lets request headers win, and lower-cases names', async () => {
    const c = createClient({ baseURL: `${server.origin}/v1`, transport: makeTransport(), headers: { 'X-Team': 'a', Accept: 'text/plain' } });
    const echo = await c.getJSON<{ headers: Record<string, string> }>('echo', { headers: { 'x-team': 'b' } });
    expect(echo.headers['x-team']).toBe('b');
    expect(echo.headers.accept).toBe('text/plain');
  });

  it('encodes query values with %20, keeps $ readable and cannot be split by & or =', async () => {
    const c = client();
    const echo = await c.getJSON<{ url: string }>('echo?fixed=1', { query: { $filter: "Name eq 'a&b=c'", list: [1, 2], skip: undefined } });
    // WHATWG URL parsing (the fetch transport) also encodes the apostrophe; both are the same query.
    expect(echo.url.replace(/%27/g, "'")).toBe("/v1/echo?fixed=1&$filter=Name%20eq%20'a%26b%3Dc'&list=1&list=2");
  });

  it('sends JSON bodies with a content type', async () => {
    const echo = await (await client().post('echo', { json: { a: [1, 'x'] } })).json<{ method: string; body: string; headers: Record<string, string> }>();
    expect(echo).toMatchObject({ method: 'POST', body: '{"a":[1,"x"]}' });
    expect(echo.headers['content-type']).toBe('application/json');
  });

  it('reads text, bytes and streams the body chunk by chunk', async () => {
    const c = client();
    expect(await (await c.get('text')).text()).toBe('héllo');
    expect(Buffer.from(await (await c.get('text')).bytes()).toString()).toBe('héllo');
    const res = await c.get('stream');
    let all = '';
    for await (const chunk of res.body) all += Buffer.from(chunk).toString();
    expect(all).toBe('chunk1;chunk2;chunk3;chunk4;chunk5;');
  });

  it('refuses to read a body twice', async () => {
    const res = await client().get('text');
    await res.text();
    await expect(res.text()).rejects.toThrow(TypeError);
  });

  it('gives undefined for a 204 and exposes response headers case-insensitively', async () => {
    const c = client();
    expect(await c.getJSON('empty')).toBeUndefined();
    const res = await c.get('cookies');
    expect(res.headers.get('Content-Type')).toBe('text/plain');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    await res.cancel();
  });

  it('throws DecodeError for malformed JSON, with an excerpt', async () => {
    const error = await client().getJSON('bad-json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as DecodeError).bodyExcerpt).toBe('{"a":1,');
  });

  it('throws DecodeError when getJSON receives another content type', async () => {
    const error = await client().getJSON('html').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as Error).message).toContain('text/html');
  });

  it('stops buffering past maxResponseBytes', async () => {
    const c = createClient({ baseURL: `${server.origin}/v1`, transport: makeTransport(), maxResponseBytes: 1000 });
    await expect(c.getJSON('big')).rejects.toThrow(/maxResponseBytes/);
    expect(await createClient({ baseURL: `${server.origin}/v1`, transport: makeTransport() }).getJSON('big')).toHaveProperty('data');
  });

  it('throws HttpError with status, method, URL, headers and a body excerpt, without cookies', async () => {
    const error = (await client().get('missing?code=s3cret&x=1').catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error).toMatchObject({ status: 404, method: 'GET', url: `${server.origin}/v1/missing?code=[REDACTED]&x=1` });
    expect(error.bodyExcerpt).toContain('no such thing');
    expect(error.headers['set-cookie']).toBeUndefined();
    expect(error.message).not.toContain('s3cret');
    expect(error.message).toBe(`GET ${server.origin}/v1/missing?code=[REDACTED]&x=1 failed with status 404`);
  });

  it('returns error responses when throwHttpErrors is false', async () => {
    const res = await client().get('missing', { throwHttpErrors: false });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'no such thing' });
  });

  it('accepts absolute URLs as paths', async () => {
    const echo = await client().getJSON<{ url: string }>(`${server.origin}/v1/echo?abs=1`);
    expect(echo.url).toBe('/v1/echo?abs=1');
  });

  it('percent-encodes spaces and non-ASCII in paths before sending', async () => {
    const c = createClient({ baseURL: `${server.origin}/v1`, transport: makeTransport(), throwHttpErrors: false });
    await (await c.get('echo/zoë a')).cancel();
    expect(server.requests.at(-1)!.url).toBe('/v1/echo/zo%C3%AB%20a');
  });

  it('uses RFC 3986 resolution when asked, so a leading slash replaces the base path', async () => {
    const c = createClient({ baseURL: `${server.origin}/v1/`, urlNormalization: URLNormalization.RFC3986, transport: makeTransport(), throwHttpErrors: false });
    await (await c.get('/echo')).cancel();
    expect(server.requests.at(-1)!.url).toBe('/echo');
    expect(c.resolve('/echo')).toEqual({ url: `${server.origin}/echo`, strategy: 'rfc3986' });
  });

  it('rejects requests after close()', async () => {
    const c = client();
    await c.close();
    await expect(c.get('echo')).rejects.toThrow(/closed/);
  });
});

describe('options are validated at construction', () => {
  it.each([
    [{ baseURL: 'not a url' }, 'baseURL'],
    [{ baseURL: 'ftp://h/x' }, 'baseURL'],
    [{ baseURL: 'https://user:pw@h/x' }, 'baseURL'],
    [{ urlNormalization: 'sometimes' }, 'urlNormalization'],
    [{ timeout: -1 }, 'timeout'],
    [{ timeout: Number.NaN }, 'timeout'],
    [{ retry: { maxAttempts: 0 } }, 'retry.maxAttempts'],
    [{ retry: { waitBase: 0 } }, 'retry.waitBase'],
    [{ retry: { maxWait: 1, waitBase: 10 } }, 'retry.maxWait'],
    [{ retry: { retryableStatus: [700] } }, 'retry.retryableStatus'],
    [{ headers: { 'bad name': 'x' } }, 'headers.bad name'],
    [{ headers: { 'x-a': 'line\r\nbreak' } }, 'headers.x-a'],
    [{ headers: { 'x-a': 1 } }, 'headers.x-a'],
    [{ plugins: [{}] }, 'plugins[0]'],
    [{ plugins: [{ name: 'a' }, { name: 'a' }] }, 'plugins[1]'],
    [{ transport: {} }, 'transport'],
    [{ maxRedirects: -1 }, 'maxRedirects'],
    [{ maxResponseBytes: 0 }, 'maxResponseBytes'],
  ])('%j throws ConfigError naming %s', (options, option) => {
    let error: unknown;
    try {
      createClient(options as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe(option);
    expect((error as Error).message.startsWith(option)).toBe(true);
  });

  it('refuses relative paths without a baseURL', async () => {
    await expect(createClient().get('users')).rejects.toThrow(ConfigError);
  });

  it('refuses non-http schemes in absolute paths', async () => {
    await expect(createClient().get('file:///etc/passwd')).rejects.toThrow(ConfigError);
  });

  it('validates per-request options too', async () => {
    await expect(createClient({ baseURL: 'http://127.0.0.1:1/v1' }).get('x', { retry: { maxAttempts: -3 } })).rejects.toThrow(/retry.maxAttempts/);
  });
});
