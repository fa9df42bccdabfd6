import { describe, expect, it } from 'vitest';
import { startServer, sendJSON } from '@sluice/testkit';
import {
  addSensitiveParams, ConfigError, createClient, DecodeError, HttpError, readErrorBody, RedirectError, redactText, redactURL,
} from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

const track = closeAfterEach();
const SECRET_QUERY = '?password=hunter2&access_token=tok123&x=1';

function expectClean(text: string): void {
  for (const secret of ['hunter2', 'tok123', 'sekrit', 'u:p@']) expect(text).not.toContain(secret);
}

describe('redactURL', () => {
  it('redacts a fragment written as parameters, and user-info', () => {
    expect(redactURL('https://u:p@h/cb?x=1#access_token=tok123&token_type=bearer&expires_in=3600'))
      .toBe('https://h/cb?x=1#access_token=[REDACTED]&token_type=bearer&expires_in=3600');
    expect(redactURL('https://h/page#section-2')).toBe('https://h/page#section-2');
  });

  it('keeps empty pairs, bare names and a trailing & byte for byte while redacting', () => {
    expect(redactURL('https://h/p?&&a=1&&token=t&flag&')).toBe('https://h/p?&&a=1&&token=[REDACTED]&flag&');
    expect(redactURL('https://h/p?')).toBe('https://h/p?');
    expect(redactURL('https://h/p?password')).toBe('https://h/p?password');
    expect(redactURL('https://h/p?x=1#&code=c&')).toBe('https://h/p?x=1#&code=[REDACTED]&');
  });

  it('redacts relative URLs and strings that do not parse', () => {
    expect(redactURL('users?password=hunter2&x=1')).toBe('users?password=[REDACTED]&x=1');
    expect(redactURL('not a url //u:p@h?secret=1')).toBe('not a url //h?secret=[REDACTED]');
  });

  it('knows the common secret parameter names, in any case and with - or _', () => {
    const names = [
      'api-key', 'apikey', 'API_KEY', 'secret', 'client_secret', 'pwd', 'passwd', 'password', 'auth', 'sessionid', 'JSESSIONID', 'sig',
      'signature', 'X-Amz-Signature', 'X-Amz-Security-Token', 'X-Amz-Credential', 'X-Goog-Signature', 'sv', 'code', 'state',
      'access_token', 'refresh_token', 'id_token', 'code_verifier', 'assertion', 'key', 'AWSAccessKeyId',
    ];
    for (const name of names) expect(redactURL(`https://h/p?${name}=v4lue&page=2`), name).toBe(`https://h/p?${name}=[REDACTED]&page=2`);
    expect(redactURL('https://h/p?page=2&top=10&filter=a')).toBe('https://h/p?page=2&top=10&filter=a');
  });

  it('keeps an OData $skiptoken (a paging cursor, not a secret) and still redacts a secret beside it', () => {
    expect(redactURL('https://h/svc/Orders?$skiptoken=500&access_token=tok123')).toBe('https://h/svc/Orders?$skiptoken=500&access_token=[REDACTED]');
    expect(redactURL("https://h/svc/Orders?%24skiptoken='A%2C1'")).toBe("https://h/svc/Orders?%24skiptoken='A%2C1'");
    expect(redactText('next: https://h/svc/Orders?skiptoken=12&password=hunter2')).toBe('next: https://h/svc/Orders?skiptoken=12&password=[REDACTED]');
  });

  it('keeps an OData delta token (a resume cursor the service wrote into its delta link, not a credential)', () => {
    expect(redactURL('https://h/svc/Orders?$deltatoken=17&$skiptoken=2&sig=abc')).toBe('https://h/svc/Orders?$deltatoken=17&$skiptoken=2&sig=[REDACTED]');
    expect(redactURL("https://h/sap/Orders?!deltatoken='D_20261126'&sap-client=100")).toBe("https://h/sap/Orders?!deltatoken='D_20261126'&sap-client=100");
    expect(redactURL('https://h/svc/Orders?%24deltatoken=17')).toBe('https://h/svc/Orders?%24deltatoken=17');
    expect(redactText('delta link https://h/svc/Orders?$deltatoken=17&access_token=t0k3n')).toBe('delta link https://h/svc/Orders?$deltatoken=17&access_token=[REDACTED]');
    expect(redactText('{"@odata.deltaLink":"Orders?$deltatoken=17","deltatoken":"17"}')).toBe('{"@odata.deltaLink":"Orders?$deltatoken=17","deltatoken":"17"}');
  });

  it('takes more names with addSensitiveParams', () => {
    expect(redactURL('https://h/p?sap-passport=abc')).toBe('https://h/p?sap-passport=abc');
    addSensitiveParams('sap-passport');
    expect(redactURL('https://h/p?sap-passport=abc')).toBe('https://h/p?sap-passport=[REDACTED]');
  });

  it('redactText cleans JSON, form pairs, XML and auth schemes', () => {
    const text = redactText('{"client_secret": "sekrit", "user": "ann"} password=hunter2&a=1 <pwd>x1</pwd> Bearer abcdef123456 https://u:p@h/');
    expect(text).toBe('{"client_secret": "[REDACTED]", "user": "ann"} password=[REDACTED]&a=1 <pwd>[REDACTED]</pwd> Bearer [REDACTED] https://h/');
  });
});

describe('every error that shows a URL shows it redacted', () => {
  it('DecodeError for an HTML page on getJSON', async () => {
    const server = track(await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>login with password=hunter2</html>');
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api` }));
    const error = await c.getJSON(`page${SECRET_QUERY}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expectClean((error as Error).message);
    expectClean((error as DecodeError).bodyExcerpt);
    expect((error as Error).message).toContain('password=[REDACTED]');
  });

  it('DecodeError for invalid JSON and for a body over maxResponseBytes names the request, redacted', async () => {
    const server = track(await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('password=hunter2 is not json');
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api` }));
    const invalid = await c.getJSON(`page${SECRET_QUERY}`).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(DecodeError);
    expect((invalid as Error).message).toContain(`GET ${server.origin}/api/page?password=[REDACTED]`);
    expectClean((invalid as Error).message);
    expectClean((invalid as DecodeError).bodyExcerpt);
    const small = track(createClient({ baseURL: `${server.origin}/api`, maxResponseBytes: 4 }));
    const tooLarge = await small.getJSON(`page${SECRET_QUERY}`).catch((e: unknown) => e);
    expect((tooLarge as Error).message).toContain('password=[REDACTED]');
    expectClean((tooLarge as Error).message);
  });

  it('ConfigError for a relative path without baseURL', async () => {
    const c = createClient();
    const error = await c.get(`users${SECRET_QUERY}`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expectClean((error as Error).message);
    await c.close();
  });

  it('RedirectError for a loop and for a redirect to ftp:', async () => {
    const server = track(await startServer((req, res) => {
      res.writeHead(302, { location: req.url!.startsWith('/api/ftp') ? 'ftp://u:p@h/file?secret=sekrit' : req.url! });
      res.end();
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api`, maxRedirects: 2 }));
    for (const path of [`loop${SECRET_QUERY}`, `ftp${SECRET_QUERY}`]) {
      const error = await c.get(path).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedirectError);
      expectClean((error as Error).message);
    }
  });
});

describe('credential headers on cross-origin redirects', () => {
  const names = ['authorization', 'x-api-key', 'api-key', 'x-auth-token', 'ocp-apim-subscription-key', 'cookie'];

  it('a documented set of credential headers is stripped when a redirect leaves the origin, and sensitiveHeaders adds more', async () => {
    const foreign = track(await startServer((req, res) => sendJSON(res, 200, req.headers)));
    const home = track(await startServer((req, res) => {
      res.writeHead(302, { location: req.url === '/api/away' ? `${foreign.origin}/landing` : '/api/final' });
      res.end();
    }));
    const c = track(createClient({ baseURL: `${home.origin}/api`, sensitiveHeaders: ['X-Tenant-Secret'] }));
    const headers = Object.fromEntries([...names, 'x-tenant-secret', 'x-plain'].map((n) => [n, `v-${n}`]));
    const seen = await c.getJSON<Record<string, string>>('away', { headers });
    for (const name of [...names, 'x-tenant-secret']) expect(seen[name], name).toBeUndefined();
    expect(seen['x-plain']).toBe('v-x-plain');
  });

  it('default headers with an API key go only to the base URL origin', async () => {
    const other = track(await startServer((req, res) => sendJSON(res, 200, req.headers)));
    const home = track(await startServer((req, res) => sendJSON(res, 200, req.headers)));
    const c = track(createClient({ baseURL: `${home.origin}/api`, headers: { 'x-api-key': 'k1', 'ocp-apim-subscription-key': 'k2', 'x-team': 't' } }));
    expect(await c.getJSON('me')).toMatchObject({ 'x-api-key': 'k1', 'ocp-apim-subscription-key': 'k2' });
    const elsewhere = await c.getJSON<Record<string, string>>(`${other.origin}/x`);
    expect(elsewhere['x-api-key']).toBeUndefined();
    expect(elsewhere['ocp-apim-subscription-key']).toBeUndefined();
    expect(elsewhere['x-team']).toBe('t');
  });

  it('client.options shows credential headers redacted', () => {
    const c = createClient({ headers: { authorization: 'Bearer tok123', 'x-api-key': 'k', 'x-my-token': 'm', accept: 'text/plain' }, sensitiveHeaders: ['x-my-token'] });
    expect(c.options.headers).toMatchObject({ authorization: '[REDACTED]', 'x-api-key': '[REDACTED]', 'x-my-token': '[REDACTED]', accept: 'text/plain' });
    expectClean(JSON.stringify(c.options));
  });
});

describe('HttpError keeps the body', () => {
  it('bodyText up to 64 KiB, redacted, and body parsed when it is JSON', async () => {
    const detail = { error: { code: 'E42', message: 'bad order', client_secret: 'sekrit' }, pad: 'x'.repeat(3000) };
    const server = track(await startServer((req, res) => {
      if (req.url === '/api/big') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('y'.repeat(200_000));
        return;
      }
      sendJSON(res, 400, detail);
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api`, retry: false }));
    const error = (await c.get('order').catch((e: unknown) => e)) as HttpError;
    expect(error).toBeInstanceOf(HttpError);
    expect(error.bodyText.length).toBeGreaterThan(3000);
    expectClean(error.bodyText);
    expect(error.body).toMatchObject({ error: { code: 'E42', message: 'bad order', client_secret: '[REDACTED]' } });
    expect(error.bodyExcerpt.length).toBeLessThanOrEqual(HttpError.EXCERPT_LIMIT + 1);
    const big = (await c.get('big').catch((e: unknown) => e)) as HttpError;
    expect(big.bodyText.length).toBe(HttpError.BODY_LIMIT);
    expect(big.bodyTruncated).toBe(true);
    expect(big.body).toBeUndefined();
  });

  it('readErrorBody reads at most the limit, redacted', async () => {
    const server = track(await startServer((_req, res) => {
      res.writeHead(403, { 'content-type': 'text/plain' });
      res.end('token=tok123 ' + 'z'.repeat(100));
    }));
    const c = track(createClient({ baseURL: `${server.origin}/api`, throwHttpErrors: false }));
    const body = await readErrorBody(await c.get('x'), 20);
    expect(body).toEqual({ text: 'token=[REDACTED] zzzzzzz', truncated: true, cause: undefined });
  });
});
