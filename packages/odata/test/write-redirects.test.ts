// Writes answered with a redirect: a 307/308 to the same origin is followed with method and body, every
// other redirect is an error (LogonRedirectError to a logon page), never a quiet result. Exact protocol
// cases against node:http servers.
import { startServer, type TestHandler, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createAsyncPoller, createODataClient, LogonRedirectError, ODataError, WriteRedirectError, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: TestHandler): Promise<TestServer> {
  const server = await startServer(handler);
  servers.push(server);
  return server;
}

function od(server: TestServer, version: '2.0' | '4.0' = '4.0', http: Record<string, unknown> = {}): ODataClient {
  const c = createODataClient({ serviceURL: `${server.origin}/svc/`, version, csrf: false, http: { retry: false, ...http } });
  clients.push(c);
  return c;
}

const LOGON = '/sap/public/bc/icf/logon?sap-client=100&redirect=%2Fsvc';

describe.each(['4.0', '2.0'] as const)('write redirects, OData %s', (version) => {
  it('a 307 to the same origin is followed with method, body and If-Match kept', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/svc/Products(1)') {
        res.writeHead(307, { location: '/svc/Products(1)?moved=1' });
        res.end();
      } else {
        res.writeHead(204, { etag: 'W/"2"' });
        res.end();
      }
    });
    const result = await od(server, version).from('Products').key(1).update({ Name: 'x' }, { etag: 'W/"1"' });
    expect(result.status).toBe(204);
    expect(result.etag).toBe('W/"2"');
    const [first, second] = server.requests;
    expect(second?.url).toBe('/svc/Products(1)?moved=1');
    expect(second?.method).toBe(first?.method);
    expect(second?.body).toBe(first?.body);
    expect(JSON.parse(second?.body ?? '')).toEqual({ Name: 'x' });
    expect(second?.headers['if-match']).toBe('W/"1"');
  });

  it('a 302 to an SAP logon page is a LogonRedirectError for create, update, delete and actions; credentials in Location are redacted', async () => {
    const server = await serve((_req, res) => {
      res.writeHead(302, { location: `http://user:secret@127.0.0.1:1${LOGON}`, 'content-type': 'text/html' });
      res.end('<html><body>Logon</body></html>');
    });
    const c = od(server, version);
    const calls: Array<() => Promise<unknown>> = [
      () => c.from('Products').create({ ID: 9 }),
      () => c.from('Products').key(1).update({ Name: 'x' }),
      () => c.from('Products').key(1).delete(),
      () => c.action('Reset').execute(),
    ];
    for (const call of calls) {
      const error = await call().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(LogonRedirectError);
      const e = error as LogonRedirectError;
      expect(e).toBeInstanceOf(ODataError);
      expect(e.status).toBe(302);
      expect(e.location).toContain('/sap/public/bc/icf/logon');
      expect(e.location).not.toContain('secret');
      expect(e.message).not.toContain('secret');
      expect(e.headers['location']).toContain('/sap/public/bc/icf/logon');
      expect(JSON.stringify(e.headers)).not.toContain('secret');
      expect(e.code).toBeUndefined();
    }
    expect(server.requests).toHaveLength(4);
  });

  it('a 307 to another origin is not followed: WriteRedirectError, nothing sent there', async () => {
    const other = await serve((_req, res) => { res.writeHead(204); res.end(); });
    const server = await serve((_req, res) => {
      res.writeHead(307, { location: `${other.origin}/svc/Products(1)` });
      res.end();
    });
    const error = await od(server, version).from('Products').key(1).delete().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(WriteRedirectError);
    expect(error).not.toBeInstanceOf(LogonRedirectError);
    expect((error as WriteRedirectError).status).toBe(307);
    expect((error as WriteRedirectError).location).toBe(`${other.origin}/svc/Products(1)`);
    expect(other.requests).toHaveLength(0);
  });

  it('a 303 or 301 after a create is an error, not a result with value undefined', async () => {
    for (const status of [303, 301]) {
      const server = await serve((_req, res) => { res.writeHead(status, { location: '/svc/Products(9)' }); res.end(); });
      const error = await od(server, version).from('Products').create({ ID: 9 }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(WriteRedirectError);
      expect((error as WriteRedirectError).status).toBe(status);
      expect(server.requests).toHaveLength(1);
    }
  });

  it('307s past maxRedirects end with WriteRedirectError', async () => {
    const server = await serve((req, res) => { res.writeHead(307, { location: `${req.url ?? ''}x` }); res.end(); });
    const error = await od(server, version, { maxRedirects: 2 }).from('Products').key(1).update({ Name: 'x' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(WriteRedirectError);
    expect((error as Error).message).toContain('maxRedirects');
    expect(server.requests).toHaveLength(3);
  });
});

describe('$batch and redirects', () => {
  it('a $batch request answered 302 to a logon page is a LogonRedirectError', async () => {
    const server = await serve((_req, res) => { res.writeHead(302, { location: LOGON }); res.end(); });
    const batch = od(server).batch();
    batch.get(od(server).from('Products'));
    const error = await batch.send().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(LogonRedirectError);
    expect((error as LogonRedirectError).status).toBe(302);
  });

  it('a batch part answered 302 is a failed result carrying LogonRedirectError (multipart and JSON)', async () => {
    const server = await serve((req, res, body) => {
      if ((req.headers['content-type'] ?? '').includes('json')) {
        const id = (JSON.parse(body) as { requests: { id: string }[] }).requests[0]?.id;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ responses: [{ id, status: 302, headers: { location: `${server.origin}${LOGON}` } }] }));
        return;
      }
      const boundary = 'b_resp';
      res.writeHead(200, { 'content-type': `multipart/mixed; boundary=${boundary}` });
      res.end([`--${boundary}`, 'Content-Type: application/http', '', 'HTTP/1.1 302 Found', `Location: ${LOGON}`, '', '', `--${boundary}--`, ''].join('\r\n'));
    });
    for (const format of ['multipart', 'json'] as const) {
      const c = od(server);
      const batch = c.batch();
      const op = batch.get(c.from('Products'));
      await batch.send({ format });
      expect(op.result.ok).toBe(false);
      expect(op.result.error).toBeInstanceOf(LogonRedirectError);
      expect((op.result.error as LogonRedirectError).location).toContain('/sap/public/bc/icf/logon');
    }
  });
});

describe('async cancel and redirects', () => {
  it('a DELETE of the status monitor answered 302 to a logon page is a LogonRedirectError, not a quiet success', async () => {
    const server = await serve((_req, res) => { res.writeHead(302, { location: LOGON }); res.end(); });
    const error = await createAsyncPoller(od(server), `${server.origin}/svc/$status/1`).cancel().then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(LogonRedirectError);
    expect(server.requests.map((r) => r.method)).toEqual(['DELETE']);
  });
});
