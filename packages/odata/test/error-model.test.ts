// One error model: every error status of an OData request is an ODataError, with code and odataMessage
// undefined when the body is no OData error (empty, HTML, plain text), on v2 and v4, reads, writes,
// actions and batch parts alike. Its cause is the plain HttpError.
import { HttpError } from '@sluice/core';
import { startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, ODataError, PageError, PreconditionFailedError, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const BODIES = {
  empty: { type: undefined, body: '' },
  html: { type: 'text/html', body: '<html><body><h1>Not Found</h1></body></html>' },
  text: { type: 'text/plain', body: 'no such thing' },
} as const;

async function start(status: number, kind: keyof typeof BODIES, version: '2.0' | '4.0'): Promise<ODataClient> {
  const { type, body } = BODIES[kind];
  const server = await startServer((_req, res) => {
    res.writeHead(status, type === undefined ? {} : { 'content-type': type });
    res.end(body);
  });
  servers.push(server);
  const c = createODataClient({ serviceURL: `${server.origin}/svc/`, version, csrf: false, http: { retry: false } });
  clients.push(c);
  return c;
}

function expectPlainODataError(error: unknown, status: number): void {
  expect(error).toBeInstanceOf(ODataError);
  const e = error as ODataError;
  expect(e.status).toBe(status);
  expect(e.code).toBeUndefined();
  expect(e.odataMessage).toBeUndefined();
  expect(e.cause).toBeInstanceOf(HttpError);
  expect(e.cause).not.toBeInstanceOf(ODataError);
  expect(e.message).toContain(`failed with status ${status}`);
}

const fail = (p: Promise<unknown>): Promise<unknown> => p.then(() => { throw new Error('resolved'); }, (e: unknown) => e);

describe.each(['4.0', '2.0'] as const)('error statuses without an OData error body, OData %s', (version) => {
  for (const kind of Object.keys(BODIES) as (keyof typeof BODIES)[]) {
    it(`${kind} body: get(), count(), writes and actions throw ODataError`, async () => {
      const c = await start(404, kind, version);
      expectPlainODataError(await fail(c.from('Products').key(1).get()), 404);
      expectPlainODataError(await fail(c.from('Products').countOnly()), 404);
      expectPlainODataError(await fail(c.from('Products').create({ ID: 1 })), 404);
      expectPlainODataError(await fail(c.from('Products').key(1).update({ Name: 'x' })), 404);
      expectPlainODataError(await fail(c.from('Products').key(1).delete()), 404);
      expectPlainODataError(await fail(c.action('Reset').execute()), 404);
      expectPlainODataError(await fail(c.metadata()), 404);
    });
  }

  it('a collection read ends with a PageError carrying the ODataError', async () => {
    const c = await start(500, 'html', version);
    const error = await fail(c.from('Products').list());
    expect(error).toBeInstanceOf(PageError);
    expectPlainODataError((error as PageError).odataError, 500);
  });

  it('a non-OData 412 stays a PreconditionFailedError with its cause', async () => {
    const c = await start(412, 'text', version);
    const error = await fail(c.from('Products').key(1).update({ Name: 'x' }, { etag: 'W/"1"' }));
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect((error as PreconditionFailedError).code).toBeUndefined();
    expect((error as PreconditionFailedError).cause).toBeInstanceOf(HttpError);
  });

  it('a $batch answered 503 with HTML is an ODataError', async () => {
    const c = await start(503, 'html', version);
    const batch = c.batch();
    batch.get(c.from('Products'));
    expectPlainODataError(await fail(batch.send()), 503);
  });
});

describe('batch parts', () => {
  it('a part answered 404 with an empty body has an ODataError with code undefined', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'multipart/mixed; boundary=b' });
      res.end(['--b', 'Content-Type: application/http', '', 'HTTP/1.1 404 Not Found', '', '', '--b--', ''].join('\r\n'));
    });
    servers.push(server);
    const c = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
    clients.push(c);
    const batch = c.batch();
    const op = batch.get(c.from('Products').key(1));
    await batch.send();
    expect(op.result.ok).toBe(false);
    expectPlainODataError(op.result.error, 404);
  });
});
