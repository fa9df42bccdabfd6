import { closedPort } from './helpers.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sluiceCLI, startODataServer, startServer, type ODataTestServer, type SluiceCLI, type TestServer } from '@sluice/testkit';

let cli: SluiceCLI;
let login: TestServer;
let srv: ODataTestServer;
beforeAll(async () => {
  cli = await sluiceCLI();
  srv = await startODataServer({ products: 10 });
  // What a misconfigured gateway or SSO proxy does: a 200 HTML login page for every URL.
  login = await startServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end('<!doctype html><html><body><form action="/login">Sign in</form></body></html>');
  });
});
afterAll(async () => {
  await login.close();
  await srv.close();
});

describe('sluice failures', () => {
  it('an unreachable service exits 1 with one line and a hint', async () => {
    const r = await cli.run(['export', `http://127.0.0.1:${await closedPort()}/odata/`, 'Products', '--retries', '0']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^sluice: GET http:\/\/127\.0\.0\.1:\d+\/odata\/(\$metadata)? failed: ECONNREFUSED \(is the service URL right and the service reachable\?\)\n$/);
  });

  it('an HTML login page instead of $metadata exits 1 and says so', async () => {
    const r = await cli.run(['export', `${login.origin}/odata/`, 'Products']);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')).toHaveLength(2);
    expect(r.stderr).toMatch(/\((that URL does not look like an OData service root|that URL did not answer OData \$metadata) \(an HTML login page\?\)/);
  });

  it('an HTML login page instead of a JSON page exits 1 and says so', async () => {
    const r = await cli.run(['export', `${login.origin}/odata/`, 'Products', '--version', '4', '-o', '/nonexistent-dir/never.ndjson']);
    // The output folder does not exist: that is found before any request.
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('sluice: --out /nonexistent-dir/never.ndjson: the folder /nonexistent-dir does not exist\n');
    const html = await cli.run(['export', `${login.origin}/odata/`, 'Products', '--version', '4']);
    expect(html.code).toBe(1);
    expect(html.stdout).toBe('');
    expect(html.stderr).toMatch(/content-type text\/html.*a login page\?/);
  });

  it('--timeout bounds each request: a service slower than it exits 1 with a hint', async () => {
    const slow = await startODataServer({ products: 10, faults: { slowFirstByteMs: 5000 } });
    try {
      const r = await cli.run(['export', slow.v4, 'Products', '--version', '4', '--timeout', '200ms', '--retries', '0']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/timed out after 200 ms.*\(raise --timeout/);
    } finally {
      await slow.close();
    }
  });

  it('a misspelt entity set exits 2 and names the nearest one from $metadata', async () => {
    const r = await cli.run(['export', srv.v4, 'Prodcts']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: 'sluice: the service has no entity set "Prodcts" (did you mean Products?)\n' });
    const far = await cli.run(['count', srv.v2, 'Invoices']);
    expect(far.code).toBe(2);
    expect(far.stderr).toBe('sluice: the service has no entity set "Invoices" (its entity sets: Products, Categories, OrderItems)\n');
  });

  it('a page that fails for good is reported by its cause, on one line', async () => {
    srv.setFaults({ failPage: { page: 0, status: 503, times: 100, retryAfter: 0 } });
    try {
      const r = await cli.run(['export', srv.v4, 'Products', '--retries', '1']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^sluice: GET \S+\/Products failed with status 503\b[^\n]*\(gave up after 2 attempts\)\n$/);
    } finally {
      srv.setFaults({});
    }
  });

  it('a failed page names its $skiptoken (not a secret) and the true number of HTTP attempts; a secret parameter stays hidden', async () => {
    const paged = await startODataServer({ products: 500, pageSize: 100 });
    paged.setFaults({ failPage: { page: 2, status: 503, times: 100, retryAfter: 0 } });
    try {
      const r = await cli.run(['export', paged.v4, 'Products', '-q', '--param', 'access_token=tok-s3cret-9']);
      expect(r.code).toBe(1);
      // The default: 3 attempts per request (core's retries), all of them on one page attempt of the stream.
      expect(r.stderr).toBe(`sluice: GET ${paged.v4}Products?access_token=[REDACTED]&$skiptoken=200 failed with status 503: ServiceUnavailable: Injected failure of page 2 (gave up after 3 attempts)\n`);
      expect(paged.requests.filter((q) => q.url.includes('skiptoken=200'))).toHaveLength(3);
      const once = await cli.run(['export', paged.v4, 'Products', '-q', '--retries', '0']);
      expect(once.stderr).toMatch(/\?\$skiptoken=200 failed with status 503: ServiceUnavailable: Injected failure of page 2\n$/);
    } finally {
      await paged.close();
    }
  });
});
