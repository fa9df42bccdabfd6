// Per-call option objects are checked as core checks its options: an unknown key is a ConfigError naming
// the key, the method and the path, with the nearest known key, and nothing is sent.
import { ConfigError } from '@sluice/core';
import { startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsyncPoller, createODataClient, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(): Promise<{ od: ODataClient; server: TestServer }> {
  const server = await startServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"value":[]}'); });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
  clients.push(od);
  return { od, server };
}

/** The ConfigError a call fails with, sync or async. */
async function configError(call: () => unknown): Promise<ConfigError> {
  let error: unknown;
  try {
    await call();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  return error as ConfigError;
}

describe('per-call options', () => {
  it('an unknown key names the key, the method, the path and the nearest known key; nothing is sent', async () => {
    const { od, server } = await start();
    const bad = { signl: undefined } as never;
    const cases: Array<[() => unknown, string, string]> = [
      [() => od.from('Products').key(1).get({ timout: 5 } as never), "timout is not a known option; did you mean timeout? (options of get() on Products(1))", 'timout'],
      [() => od.from('Products').list({ maxPagesize: 10 } as never), 'did you mean maxPageSize? (options of list() on Products)', 'maxPagesize'],
      [() => od.from('Products').stream(bad), 'did you mean signal? (options of stream() on Products)', 'signl'],
      [() => od.from('Products').countOnly(bad), 'countOnly() on Products', 'signl'],
      [() => od.from('Products').create({ ID: 1 }, { prefr: 'minimal' } as never), 'did you mean prefer? (options of create() on Products)', 'prefr'],
      [() => od.from('Products').key(1).update({ Name: 'x' }, { etg: '*' } as never), 'did you mean etag? (options of update() on Products(1))', 'etg'],
      [() => od.from('Products').key(1).delete({ ifMatch: '*' } as never), 'did you mean etag? (options of delete() on Products(1))', 'ifMatch'],
      [() => od.action('Reset').execute({ asynch: true } as never), 'did you mean async? (options of execute() on action Reset)', 'asynch'],
      [() => od.function('Echo').execute({ alias: true } as never), 'did you mean aliases?', 'alias'],
      [() => od.metadata(bad), 'metadata() on $metadata', 'signl'],
      [() => od.batch().get(od.from('Products'), { header: {} } as never), 'did you mean headers? (options of batch get() on Products)', 'header'],
      [() => od.batch().changeset((cs) => cs.update(od.from('Products').key(1), {}, { etga: '*' } as never)), 'changeset update() on Products(1)', 'etga'],
      [() => od.batch().send({ maxOperation: 5 } as never), 'did you mean maxOperations? (options of send() on batch)', 'maxOperation'],
      [() => createAsyncPoller(od, 'Jobs(1)', { pollIntervall: 5 } as never), 'did you mean pollInterval? (options of createAsyncPoller())', 'pollIntervall'],
    ];
    for (const [call, text, option] of cases) {
      const error = await configError(call);
      expect(error.option).toBe(option);
      expect(error.message).toContain(text);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('headers must map names to strings; options must be an object', async () => {
    const { od, server } = await start();
    const error = await configError(() => od.from('Products').key(1).get({ headers: { 'x-n': 5 } } as never));
    expect(error.option).toBe('headers.x-n');
    expect(error.message).toContain('must be a string, got number (options of get() on Products(1))');
    expect((await configError(() => od.from('Products').list('fast' as never))).message).toContain('options of list() on Products must be an object, got string');
    expect(server.requests).toHaveLength(0);
  });

  it('nested http options of the client are named under http.', async () => {
    const error = await configError(() => createODataClient({ serviceURL: 'http://127.0.0.1:1/svc/', http: { retrys: 2 } as never }));
    expect(error.option).toBe('http.retrys');
    expect(error.message).toMatch(/did you mean http\.retry\?/);
  });

  it('known options still work', async () => {
    const { od, server } = await start();
    expect(await od.from('Products').list({ maxPageSize: 10, headers: { 'x-a': 'b' }, timeout: 5000 })).toEqual([]);
    expect(server.requests[0]?.headers['x-a']).toBe('b');
    // BatchSendOptions has deadline (from WriteOptions): accepted, not refused as unknown.
    const batch = od.batch();
    batch.get(od.from('Products'));
    expect(await batch.send({ deadline: 60_000 }).catch((e: unknown) => e)).not.toBeInstanceOf(ConfigError);
  });
});
