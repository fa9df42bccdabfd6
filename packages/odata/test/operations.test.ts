import { startServer, type ODataTestServer } from '@sluice/testkit';
import { AbortError, createClient, ConfigError, DeadlineError } from '@sluice/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import {
  AsyncOperationCancelledError, AsyncOperationFailedError, AsyncOperationTimeoutError, AsyncOpStatus, createAsyncPoller, createODataClient,
  ForeignOriginError, ODataVersionError, UnknownOperationError, type ODataClient,
} from '../src/index.js';

const kit = useWriteServer();
const client = kit.client;
let srv: ODataTestServer;
beforeAll(() => {
  srv = kit.server();
});
const lastURL = (): string => srv.requests.at(-1)!.url;
const fast = { pollInterval: 1 };

describe('functions', () => {
  it('v4: inline parameters escaped as literals, or as aliases', async () => {
    const od = client('4.0');
    expect(await od.function<string>('Echo', { Text: "O'Neil & /?#", Count: 2 }).execute()).toBe("O'Neil & /?#|2");
    expect(lastURL()).toMatch(/\/Echo\(Text='O''Neil%20&%20%2F%3F%23',Count=2\)$/);
    expect(await od.function<string>('Echo', { Text: "it's", Count: 3 }).execute({ aliases: true })).toBe("it's|3");
    expect(lastURL()).toMatch(/\/Echo\(Text=@Text,Count=@Count\)\?@Text='it''s'&@Count=3$/);
  });

  it('v2: function import parameters as query options, with the method $metadata declares', async () => {
    const od = client('2.0');
    expect(await od.function<string>('Echo').parameter('Text', "a'b").parameter('Count', 1).execute()).toBe("a'b|1");
    expect(srv.requests.at(-1)!.method).toBe('GET');
    expect(srv.requests.at(-1)!.headers['content-type']).toBeUndefined();
    await od.metadata();
    const { value } = await od.from('Orders').create({ Customer: 'Imp', Amount: '1', Quantity: '1' });
    const approved = await od.action<{ Status: string }>('ApproveOrder').parameter('ID', (value as { ID: number }).ID).parameter('Comment', 'ok').execute();
    const post = srv.requests.at(-1)!;
    expect(post.method).toBe('POST');
    // Bodiless, but with a JSON content type: SAP CAP's v2 adapter drops the parameters without one.
    expect(post.headers['content-type']).toBe('application/json');
    expect(post.url).toMatch(/\/ApproveOrder\?ID=\d+&Comment='ok'$/);
    expect(approved.value).toMatchObject({ Status: 'Approved' });
  });

  it('v2: a primitive result nested as {"value": …} (SAP CAP for Int64) is unwrapped; a complex one is kept', async () => {
    const bodies: Record<string, unknown> = {
      Stock: { d: { Stock: { value: '9007199254740993', __metadata: {} } } },
      Count: { d: { Count: 3 } },
      Dims: { d: { Dims: { __metadata: { type: 'NS.Dims' }, value: 2 } } },
    };
    const v2 = await startServer((req, res) => {
      const name = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(bodies[name] ?? {}));
    });
    try {
      const od = createODataClient({ serviceURL: `${v2.origin}/`, version: '2.0' });
      kit.track(od);
      expect(await od.function('Stock', { ID: 4 }).execute()).toBe('9007199254740993');
      expect(await od.function('Count').execute()).toBe(3);
      expect(await od.function('Dims').execute()).toEqual({ value: 2 });
    } finally {
      await v2.close();
    }
  });

  it('a bound collection function (v4) returns its value', async () => {
    const od = client('4.0');
    await od.from('Orders').create({ Customer: 'Sum', Amount: '2.50', Quantity: 1 });
    const total = await od.from('Orders').function<string>('Demo.TotalAmount').execute();
    expect(typeof total).toBe('string');
    expect(lastURL()).toMatch(/\/Orders\/Demo\.TotalAmount\(\)$/);
  });
});

describe('actions', () => {
  it('bound to an entity: POST with parameters in the body, If-Match when given', async () => {
    const od = client('4.0');
    await od.metadata();
    const { value, etag } = await od.from('Orders').create({ Customer: 'B', Amount: '1', Quantity: 1 });
    const id = (value as { ID: number }).ID;
    const result = await od.from('Orders').key(id).action<{ Status: string }>('Approve').parameter('Comment', 'fine').execute({ etag: etag! });
    expect(result).toMatchObject({ isAsync: false, status: 200, value: { Status: 'Approved' } });
    const post = srv.requests.at(-1)!;
    expect(post.url).toMatch(new RegExp(`/Orders\\(${id}\\)/Demo\\.Approve$`));
    expect(JSON.parse(post.body)).toEqual({ Comment: 'fine' });
    expect(post.headers['if-match']).toBe('W/"1"');
  });

  it('names not in $metadata, wrong kinds and undeclared parameters are typed errors before sending', async () => {
    const od = client('4.0');
    await od.metadata();
    const before = srv.requests.length;
    await expect(od.action('Nope').execute()).rejects.toBeInstanceOf(UnknownOperationError);
    await expect(od.action('Echo').execute()).rejects.toThrow(/is a function import: call it with od.function\(\)/);
    await expect(od.from('Orders').key(1).action('Demo.CloseAll').execute()).rejects.toThrow(/is not bound to Demo.Order/);
    await expect(od.function('Echo', { Txt: 'x' }).execute()).rejects.toThrow(/is not a parameter of Echo; its parameters: Text, Count/);
    await expect(od.function('Echo', { Text: 5, Count: 1 }).execute()).rejects.toBeInstanceOf(ConfigError);
    expect(srv.requests.length).toBe(before);
    await expect(client('2.0').from('Orders').key(1).action('Approve').execute()).rejects.toBeInstanceOf(ODataVersionError);
  });

  it('answers isAsync with the status URL on 202, and the poller follows the status resource to Succeeded', async () => {
    const od = client('4.0');
    const run = await od.action('StartJob').parameter('Polls', 2).execute({ async: true });
    expect(run).toMatchObject({ isAsync: true, status: 202, value: undefined });
    expect(srv.requests.at(-1)!.headers.prefer).toBe('respond-async');
    const start = srv.requests.length;
    const done = await createAsyncPoller(od, run.location!, fast).wait();
    expect(done).toMatchObject({ status: AsyncOpStatus.Succeeded, polls: 3, resultURL: `${run.location}/result`, value: { Outcome: 'Succeeded' } });
    // three polls, then the result
    expect(srv.requests.length - start).toBe(4);
  });

  it('a synchronous answer is not async', async () => {
    const run = await client('4.0').action<{ Outcome: string }>('StartJob').execute();
    expect(run).toMatchObject({ isAsync: false, location: undefined, value: { Outcome: 'Succeeded' } });
  });
});

describe('async poller (SPEC 3.2, 7)', () => {
  const start = async (od: ODataClient, params: Record<string, unknown>): Promise<string> => {
    let call = od.action('StartJob').parameter('Async', true);
    for (const [k, v] of Object.entries(params)) call = call.parameter(k, v);
    return (await call.execute()).location!;
  };

  it('Failed throws AsyncOperationFailedError, in both monitor styles', async () => {
    const od = client('4.0');
    const a = await createAsyncPoller(od, await start(od, { Polls: 1, Outcome: 'Failed' }), fast).wait().catch((e: unknown) => e);
    expect(a).toBeInstanceOf(AsyncOperationFailedError);
    expect((a as Error).message).toMatch(/failed after 2 poll\(s\): Job \d+ failed/);
    const b = await createAsyncPoller(od, await start(od, { Polls: 0, Outcome: 'Failed', Monitor: 'odata' }), fast).wait().catch((e: unknown) => e);
    expect(b).toBeInstanceOf(AsyncOperationFailedError);
    expect((b as Error).cause).toMatchObject({ status: 500, code: 'JobFailed' });
  });

  it('reaching maxPolls throws AsyncOperationTimeoutError after exactly maxPolls requests', async () => {
    const od = client('4.0');
    const url = await start(od, { Polls: 10 });
    const before = srv.requests.length;
    const error = await createAsyncPoller(od, url, { pollInterval: 1, maxPolls: 4 }).wait().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AsyncOperationTimeoutError);
    expect(error).toMatchObject({ polls: 4 });
    expect(srv.requests.length - before).toBe(4);
  });

  it('Cancelled throws AsyncOperationCancelledError; cancel() sends DELETE', async () => {
    const od = client('4.0');
    await expect(createAsyncPoller(od, await start(od, { Polls: 0, Outcome: 'Cancelled' }), fast).wait()).rejects.toBeInstanceOf(AsyncOperationCancelledError);
    const poller = createAsyncPoller(od, await start(od, { Polls: 5 }), fast);
    await poller.cancel();
    expect(srv.requests.at(-1)!.method).toBe('DELETE');
    await expect(poller.wait()).rejects.toBeInstanceOf(AsyncOperationCancelledError);
  });

  it('the OData status monitor: 202 while running (Retry-After honoured), then the result, or a 303 to it', async () => {
    const od = client('4.0');
    const direct = await createAsyncPoller(od, await start(od, { Polls: 2, Monitor: 'odata', RetryAfter: 0 }), { pollInterval: 60_000 }).wait();
    expect(direct).toMatchObject({ status: 'Succeeded', polls: 3, value: { Outcome: 'Succeeded' } });
    const redirected = await createAsyncPoller(od, await start(od, { Polls: 1, Monitor: 'odata-303' }), fast).wait();
    expect(redirected.resultURL).toMatch(/\$jobs\/\d+\/result$/);
    expect(redirected.value).toMatchObject({ Outcome: 'Succeeded' });
  });

  it('an abort or a deadline ends the wait with an error of neither class', async () => {
    const od = client('4.0');
    const url = await start(od, { Polls: 100 });
    const error = await createAsyncPoller(od, url, { pollInterval: 50, maxPolls: 1000 }).wait({ signal: AbortSignal.timeout(200) }).catch((e: unknown) => e);
    // AbortError when the deadline passes in the wait between polls, DeadlineError when it passes during a poll
    expect(error instanceof AbortError || error instanceof DeadlineError).toBe(true);
    expect(error).not.toBeInstanceOf(AsyncOperationTimeoutError);
    expect(error).not.toBeInstanceOf(AsyncOperationFailedError);
  });

  it('a status URL on another origin is refused before any request, so no credential goes there', async () => {
    const foreign = await startServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"Status":"Succeeded"}'); });
    try {
      const od = createODataClient({ serviceURL: srv.v4, version: '4.0', http: { headers: { authorization: 'Bearer secret' } } });
      kit.track(od);
      expect(() => createAsyncPoller(od, `${foreign.origin}/status/1`)).toThrow(ForeignOriginError);
      const core = createClient({ baseURL: srv.v4 });
      expect(() => createAsyncPoller(core, `${foreign.origin}/status/1`)).toThrow(ForeignOriginError);
      await core.close();
      expect(foreign.requests).toHaveLength(0);
      // allowed explicitly: polled, without the client's credentials (they belong to the service origin)
      const allowed = createODataClient({ serviceURL: srv.v4, version: '4.0', allowedOrigins: [foreign.origin], http: { headers: { authorization: 'Bearer secret' } } });
      kit.track(allowed);
      await createAsyncPoller(allowed, `${foreign.origin}/status/1`).wait();
      expect(foreign.requests[0]!.headers.authorization).toBeUndefined();
    } finally {
      await foreign.close();
    }
  });

  it('validates its options', () => {
    const od = client('4.0');
    expect(() => createAsyncPoller(od, `${srv.v4}$jobs/1`, { maxPolls: 0 })).toThrow(ConfigError);
    expect(() => createAsyncPoller(od, `${srv.v4}$jobs/1`, { pollInterval: -1 })).toThrow(ConfigError);
  });
});
