import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendJSON, startServer, type TestServer } from '@sluice/testkit';
import { ConfigError, createClient, type Client, type RequestOptions } from '@sluice/core';

describe('request options refuse unknown keys', () => {
  let server: TestServer;
  let client: Client;
  beforeAll(async () => {
    server = await startServer((_req, res) => sendJSON(res, 200, { ok: true }));
    client = createClient({ baseURL: `${server.origin}/api`, retry: false });
  });
  afterAll(async () => {
    await client.close();
    await server.close();
  });

  it('names the key and the nearest valid one, and sends nothing', async () => {
    const before = server.requests.length;
    await expect(client.get('x', { timout: 50 } as never)).rejects.toThrow(/^timout is not a known option; did you mean timeout\?/);
    await expect(client.getJSON('x', { heders: { a: 'b' } } as never)).rejects.toThrow(/did you mean headers\?/);
    await expect(client.request({ path: 'x', methd: 'POST' } as never)).rejects.toThrow(/did you mean method\?/);
    await expect(client.post('x', { jsn: {} } as never)).rejects.toThrow(/did you mean json\?/);
    expect(server.requests.length).toBe(before);
  });

  it('maps names other clients use to ours', async () => {
    await expect(client.get('x', { params: { a: 1 } } as never)).rejects.toThrow(/params is not a known option; did you mean query\?/);
    await expect(client.get('x', { searchParams: { a: 1 } } as never)).rejects.toThrow(/did you mean query\?/);
    await expect(client.request({ url: 'x' } as never)).rejects.toThrow(/did you mean path\?/);
    await expect(client.get('x', { retries: 2 } as never)).rejects.toThrow(/did you mean retry\?/);
  });

  it("checks a request's nested retry object too, and sends nothing", async () => {
    const before = server.requests.length;
    await expect(client.get('x', { retry: { limit: 2 } } as never)).rejects.toThrow(/^retry\.limit is not an option of retry; did you mean retry\.maxAttempts\?/);
    await expect(client.get('x', { retry: { statusCodes: [503] } } as never)).rejects.toThrow(/did you mean retry\.retryableStatus\?/);
    expect(server.requests.length).toBe(before);
  });

  it('rejects a key far from any option with the list of known ones, as a ConfigError', async () => {
    const error: unknown = await client.get('x', { zzzzzzzz: 1 } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).option).toBe('zzzzzzzz');
    expect((error as Error).message).toMatch(/known options: method, path, query/);
  });

  it('accepts every documented key, undefined values included', async () => {
    const every: Required<RequestOptions> = {
      method: 'GET', path: 'x', query: { a: 1 }, headers: { 'x-a': '1' }, body: undefined as never, json: undefined, signal: new AbortController().signal,
      timeout: 5000, deadline: 10_000, retry: false, idempotent: true, throwHttpErrors: true, context: {}, failFast: false, maxRedirects: 2,
    };
    const response = await client.request(every);
    expect(await response.json()).toEqual({ ok: true });
    expect(server.requests.at(-1)!.url).toBe('/api/x?a=1');
  });

  it('ignores keys inherited from a prototype (only the given object\'s own keys count)', async () => {
    const init = Object.create({ inherited: true }) as RequestOptions;
    init.timeout = 5000;
    await expect(client.getJSON('x', init)).resolves.toEqual({ ok: true });
  });
});
