// The async poller hands back the operation's result: fetched from ResultURL, embedded by the monitor
// (OData 4.01 Part 1 section 11.6, application/http), or after a 303, always under the link policy.
import { startServer, type ODataTestServer, type TestServer } from '@sluice/testkit';
import { createClient, type SluiceEvent } from '@sluice/core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { useWriteServer } from './write-server.js';
import {
  AsyncOperationFailedError, AsyncOpStatus, createAsyncPoller, createODataClient, ForeignOriginError, ODataError, ODataFormatError, type ODataClient,
} from '../src/index.js';

const kit = useWriteServer();
let srv: ODataTestServer;
beforeAll(() => {
  srv = kit.server();
});
const extra: TestServer[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((s) => s.close()));
});
const fast = { pollInterval: 1 };

async function start(od: ODataClient, params: Record<string, unknown>): Promise<string> {
  let call = od.action('StartJob').parameter('Async', true);
  for (const [k, v] of Object.entries(params)) call = call.parameter(k, v);
  return (await call.execute()).location!;
}

describe('async poller: the result', () => {
  it('GETs the ResultURL of a status resource through the same client and hands back its decoded value', async () => {
    for (const version of ['4.0', '2.0'] as const) {
      const od = kit.client(version, { http: { retry: false, headers: { authorization: 'Bearer t0ken' } } });
      const url = await start(od, { Polls: 1 });
      const before = srv.requests.length;
      const done = await createAsyncPoller<{ JobID: number; Outcome: string }>(od, url, fast).wait();
      expect(done).toMatchObject({ status: AsyncOpStatus.Succeeded, polls: 2, resultURL: `${url}/result`, resultStatus: 200 });
      expect(done.value).toEqual({ JobID: expect.any(Number), Outcome: 'Succeeded' });
      const sent = srv.requests.slice(before);
      expect(sent.map((r) => r.url.replace(/^.*\$jobs/, '$jobs'))).toEqual([`$jobs/${done.value!.JobID}`, `$jobs/${done.value!.JobID}`, `$jobs/${done.value!.JobID}/result`]);
      expect(sent.at(-1)!.headers.authorization).toBe('Bearer t0ken');
    }
  });

  it('fetchResult: false only reports the URL and sends nothing more', async () => {
    const od = kit.client('4.0');
    const url = await start(od, { Polls: 0 });
    const before = srv.requests.length;
    const done = await createAsyncPoller(od, url, { ...fast, fetchResult: false }).wait();
    expect(done).toMatchObject({ resultURL: `${url}/result`, value: undefined, resultStatus: undefined, polls: 1 });
    expect(srv.requests.length - before).toBe(1);
  });

  it('the final response embedded as application/http: its value, or its error as AsyncOperationFailedError', async () => {
    const od = kit.client('4.0');
    const done = await createAsyncPoller(od, await start(od, { Polls: 1, Monitor: 'odata-http' }), fast).wait();
    expect(done).toMatchObject({ status: 'Succeeded', polls: 2, resultStatus: 200, value: { Outcome: 'Succeeded' } });
    expect(done.value).not.toHaveProperty('@odata.context');
    const failed = await createAsyncPoller(od, await start(od, { Polls: 0, Monitor: 'odata-http', Outcome: 'Failed' }), fast).wait().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AsyncOperationFailedError);
    expect((failed as Error).message).toMatch(/failed after 1 poll\(s\): Job \d+ failed/);
    expect((failed as Error).cause).toBeInstanceOf(ODataError);
    expect((failed as Error).cause).toMatchObject({ status: 500, code: 'JobFailed' });
  });

  it('a ResultURL on another origin under the service root is rebased; with rebaseLinks false it is refused before any request', async () => {
    const foreign = await startServer((_req, res) => { res.writeHead(500).end(); });
    extra.push(foreign);
    const events: SluiceEvent[] = [];
    const od = kit.client('4.0', { http: { retry: false, onEvent: (e) => events.push(e) } });
    const done = await createAsyncPoller(od, await start(od, { Polls: 0, ResultOrigin: foreign.origin }), fast).wait();
    expect(done.value).toMatchObject({ Outcome: 'Succeeded' });
    expect(done.resultURL!.startsWith(srv.v4)).toBe(true);
    expect(events.some((e) => e.type === 'odata.link.rebased' && e.kind === 'resultURL')).toBe(true);
    const strict = kit.client('4.0', { rebaseLinks: false });
    const refused = await createAsyncPoller(strict, await start(strict, { Polls: 0, ResultOrigin: foreign.origin }), fast).wait().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForeignOriginError);
    expect(refused).toMatchObject({ kind: 'resultURL', origin: foreign.origin });
    expect(foreign.requests).toHaveLength(0);
  });

  it('a result the service refuses is its ODataError', async () => {
    const monitor = await startServer((req, res) => {
      if (req.url === '/svc/status') res.writeHead(200, { 'content-type': 'application/json' }).end('{"Status":"Succeeded","ResultURL":"result"}');
      else res.writeHead(410, { 'content-type': 'application/json' }).end('{"error":{"code":"Gone","message":"result expired"}}');
    });
    extra.push(monitor);
    const od = kit.track(createODataClient({ serviceURL: `${monitor.origin}/svc/`, version: '4.0', http: { retry: false } }));
    const error = await createAsyncPoller(od, `${monitor.origin}/svc/status`, fast).wait().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ODataError);
    expect(error).toMatchObject({ status: 410, code: 'Gone' });
    expect(monitor.requests.map((r) => r.url)).toEqual(['/svc/status', '/svc/result']);
  });

  it('a monitor answering 200 with a body (or an embedded response) that is no JSON is an ODataFormatError, not a success', async () => {
    const monitor = await startServer((req, res) => {
      if (req.url === '/svc/html') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Logon</html>');
      else if (req.url === '/svc/embedded') res.writeHead(200, { 'content-type': 'application/http' }).end('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<html>Logon</html>');
      else if (req.url === '/svc/embedded-broken') res.writeHead(200, { 'content-type': 'application/http' }).end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"value": oops');
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"Status":"Succeeded", oops');
    });
    extra.push(monitor);
    const od = kit.track(createODataClient({ serviceURL: `${monitor.origin}/svc/`, version: '4.0', http: { retry: false } }));
    const cases = [
      ['html', /expected a JSON response, got content-type text\/html/], ['broken', /answered invalid JSON/],
      ['embedded', /embedded response has content-type text\/html, not JSON/], ['embedded-broken', /embedded response is not valid JSON/],
    ] as const;
    for (const [path, message] of cases) {
      const error = await createAsyncPoller(od, `${monitor.origin}/svc/${path}`, fast).wait().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ODataFormatError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('a 303 to another origin outside the service root is refused with ForeignOriginError, and no credential went there', async () => {
    const elsewhere = await startServer((_req, res) => { res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":"data"}'); });
    extra.push(elsewhere);
    const monitor = await startServer((_req, res) => { res.writeHead(303, { location: `${elsewhere.origin}/other/result` }).end(); });
    extra.push(monitor);
    const od = kit.track(createODataClient({ serviceURL: `${monitor.origin}/svc/`, version: '4.0', http: { retry: false, headers: { authorization: 'Bearer t0ken' } } }));
    const error = await createAsyncPoller(od, `${monitor.origin}/svc/$jobs/1`, fast).wait().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForeignOriginError);
    expect(error).toMatchObject({ kind: 'resultURL', origin: elsewhere.origin });
    // Refused before any request: the foreign server saw nothing, with or without credentials.
    expect(elsewhere.requests).toHaveLength(0);
    expect(monitor.requests.map((r) => r.url)).toEqual(['/svc/$jobs/1']);
  });

  it('a 303 to an internal origin under the service root (CAP behind a proxy) is rebased onto the service and the result read', async () => {
    const internal = await startServer((_req, res) => { res.writeHead(500).end(); });
    extra.push(internal);
    const events: SluiceEvent[] = [];
    const od = kit.client('4.0', { http: { retry: false, onEvent: (e) => events.push(e) } });
    const url = await start(od, { Polls: 0, Monitor: 'odata-303', ResultOrigin: internal.origin });
    const before = srv.requests.length;
    const done = await createAsyncPoller<{ Outcome: string }>(od, url, fast).wait();
    expect(done).toMatchObject({ status: 'Succeeded', polls: 1, resultURL: `${url}/result`, resultStatus: 200, value: { Outcome: 'Succeeded' } });
    expect(srv.requests.slice(before).map((r) => r.url.replace(/^.*\$jobs/, '$jobs'))).toEqual([expect.stringMatching(/^\$jobs\/\d+$/), expect.stringMatching(/^\$jobs\/\d+\/result$/)]);
    expect(internal.requests).toHaveLength(0);
    expect(events.some((e) => e.type === 'odata.link.rebased' && e.kind === 'resultURL')).toBe(true);
    const strict = kit.client('4.0', { rebaseLinks: false });
    const refused = await createAsyncPoller(strict, await start(strict, { Polls: 0, Monitor: 'odata-303', ResultOrigin: internal.origin }), fast).wait().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ForeignOriginError);
    expect(internal.requests).toHaveLength(0);
  });

  it('a monitor that moved (307) is polled at its new URL under the link policy; a 302 names the result like a 303', async () => {
    const monitor = await startServer((req, res) => {
      if (req.url === '/svc/$jobs/1') res.writeHead(307, { location: '/svc/$jobs/2' }).end();
      else if (req.url === '/svc/$jobs/2') res.writeHead(302, { location: 'result/2' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"value":"done"}');
    });
    extra.push(monitor);
    const od = kit.track(createODataClient({ serviceURL: `${monitor.origin}/svc/`, version: '4.0', http: { retry: false } }));
    const done = await createAsyncPoller(od, `${monitor.origin}/svc/$jobs/1`, fast).wait();
    expect(done).toMatchObject({ status: 'Succeeded', polls: 2, resultURL: `${monitor.origin}/svc/$jobs/result/2`, value: 'done' });
    expect(monitor.requests.map((r) => r.url)).toEqual(['/svc/$jobs/1', '/svc/$jobs/2', '/svc/$jobs/result/2']);
  });

  it('with a core client, a ResultURL on its own origin is fetched and another origin refused', async () => {
    const core = createClient({ baseURL: srv.v4, retry: false });
    try {
      const od = kit.client('4.0');
      const done = await createAsyncPoller(core, await start(od, { Polls: 0 }), fast).wait();
      expect(done.value).toMatchObject({ Outcome: 'Succeeded' });
      const foreign = await createAsyncPoller(core, await start(od, { Polls: 0, ResultOrigin: 'http://127.0.0.2:9' }), fast).wait().catch((e: unknown) => e);
      expect(foreign).toBeInstanceOf(ForeignOriginError);
    } finally {
      await core.close();
    }
  });
});
