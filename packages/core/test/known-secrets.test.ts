import { inspect } from 'node:util';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from '@sluice/testkit';
import { createClient, DecodeError, errorResponseInit, HttpError, KnownSecrets, readErrorBody, redactText, type Plugin, type SluiceEvent } from '@sluice/core';
import { closeAfterEach } from './close-after-each.js';

// Issue 29: a credential a server echoes back bare (not as `name=value` or `Bearer x`) was printed.
const track = closeAfterEach();
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.c3ViOmFsaWNl.s1gn/at+ure';
const USER = 'alice';
const PASSWORD = 'ck2Z+"q\'/pa55 wörd';
const BASIC = Buffer.from(`${USER}:${PASSWORD}`).toString('base64');

/** Every form of `value` a server may echo: as is, URL- and form-encoded, base64(url), JSON-escaped. */
function formsOf(value: string): string[] {
  const b64 = Buffer.from(value).toString('base64');
  return [value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2), b64, Buffer.from(value).toString('base64url'),
    JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/')];
}

/** Everything a caller can see of an error: message, fields, inspect, JSON. */
function visible(error: unknown): string {
  return [inspect(error, { depth: 5 }), JSON.stringify(error), String((error as Error).message)].join('\n');
}

function expectNone(text: string, ...values: string[]): void {
  for (const value of values) for (const form of formsOf(value)) expect(text, form).not.toContain(form);
}

/** A server that echoes what it got in the body, in a `WWW-Authenticate` header and in the status line's text. */
function echo(status: number, render: (auth: string, req: IncomingMessage) => string, type = 'text/plain') {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const auth = req.headers.authorization ?? '';
    const [, credentials = ''] = auth.split(' ');
    res.writeHead(status, {
      'content-type': type,
      'www-authenticate': `Bearer realm="api", error="invalid_token", error_description="token ${credentials} expired"`,
      'x-echo-authorization': auth,
    });
    res.end(render(credentials, req));
  };
}

describe('known secrets are scrubbed from errors, events and the body of an error', () => {
  it('a bearer token a 500 echoes bare: not in HttpError message, bodyText, body, headers, inspect or JSON', async () => {
    const server = track(await startServer(echo(500, (t) => JSON.stringify({ error: `the credential ${t} is not valid`, again: t, b64: Buffer.from(t).toString('base64'), url: encodeURIComponent(t) }), 'application/json')));
    const events: SluiceEvent[] = [];
    const client = track(createClient({ baseURL: server.origin, headers: { authorization: `Bearer ${TOKEN}` }, retry: false, onEvent: (e) => events.push(e) }));
    const error = await client.get('items').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    const http = error as HttpError;
    expect(http.bodyText).toContain('the credential [REDACTED] is not valid');
    expect(http.headers['www-authenticate']).toContain('token [REDACTED] expired');
    expectNone([visible(error), http.bodyText, http.bodyExcerpt, JSON.stringify(http.body), JSON.stringify(http.headers), JSON.stringify(events)].join('\n'), TOKEN);
  });

  it('Basic credentials echoed as user:password, password, base64 or URL-encoded: none survives', async () => {
    const server = track(await startServer(echo(401, (b64) => {
      const decoded = Buffer.from(b64, 'base64').toString('utf8');
      const password = decoded.slice(decoded.indexOf(':') + 1);
      return `got ${decoded}; password ${password}; url ${encodeURIComponent(password)}; raw ${b64}; json {"p":${JSON.stringify(password).replace(/\//g, '\\/')}}`;
    })));
    const client = track(createClient({ baseURL: server.origin, headers: { Authorization: `Basic ${BASIC}` }, retry: false }));
    const error = await client.get('items').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).headers['x-echo-authorization']).toBe('[REDACTED]');
    expectNone(visible(error), PASSWORD, `${USER}:${PASSWORD}`, BASIC);
    expect((error as HttpError).bodyText).toContain('got [REDACTED]; password [REDACTED]');
  });

  it('a credential given in one request\'s headers, and one a plugin registers, are scrubbed too', async () => {
    const server = track(await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<p>key ${String(req.headers['x-api-key'])} and ${String(req.headers.authorization)} refused</p>`);
    }));
    const apiKey = 'k3y-from-plugin-29';
    const plugin: Plugin = {
      name: 'api-key',
      setup(client) { client.secrets.add(apiKey) },
      onRequest(req) { req.headers['x-api-key'] = apiKey },
    };
    const client = track(createClient({ baseURL: server.origin, plugins: [plugin] }));
    const error = await client.getJSON('page', { headers: { authorization: `Token ${TOKEN}` } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecodeError);
    expect((error as DecodeError).bodyExcerpt).toContain('key [REDACTED] and [REDACTED] refused');
    expectNone(visible(error), apiKey, TOKEN);
  });

  it('a secret in the URL path is scrubbed from events and the error message', async () => {
    const server = track(await startServer(echo(404, () => 'no')));
    const events: SluiceEvent[] = [];
    const client = track(createClient({ baseURL: server.origin, headers: { authorization: `Bearer ${TOKEN}` }, retry: false, onEvent: (e) => events.push(e) }));
    const error = await client.get(`keys/${encodeURIComponent(TOKEN)}`).catch((e: unknown) => e);
    expect((error as Error).message).toContain('/keys/[REDACTED] failed with status 404');
    expect(events.filter((e) => e.type === 'request.end')).toHaveLength(1);
    expectNone(JSON.stringify(events) + visible(error), TOKEN);
    // An error built from the response by a package on core (as OData does), outside the client's own rejection.
    const response = await client.get(`keys/${encodeURIComponent(TOKEN)}`, { throwHttpErrors: false });
    const built = new HttpError(errorResponseInit(response, await readErrorBody(response)));
    expect(built.url).toMatch(/\/keys\/\[REDACTED\]$/);
    expectNone(visible(built), TOKEN);
  });
});

describe('redaction of a JSON-escaped slash', () => {
  it('Basic and Bearer credentials with \\/ are redacted whole, wherever the slash is', () => {
    const php = JSON.stringify({ header: `Authorization: Basic ${'Y2s/yWisicSc6cGE1NSB3w7ZyZA=='}` }).replace(/\//g, '\\/');
    expect(redactText(php)).toBe('{"header":"Authorization: Basic [REDACTED]"}');
    expect(redactText('{"h":"Bearer a\\/bcdefgh\\/ij"}')).toBe('{"h":"Bearer [REDACTED]"}');
    expect(redactText('{"u":"https:\\/\\/bob:pw@host\\/p"}')).toBe('{"u":"https:\\/\\/host\\/p"}');
  });
});

describe('inspect and JSON of a client show no credential', () => {
  it('console.log, util.inspect and JSON.stringify of a client redact its credential headers', async () => {
    const client = track(createClient({ baseURL: 'http://127.0.0.1:9/api', headers: { authorization: `Bearer ${TOKEN}`, 'x-api-key': 'k-29-secret' } }));
    const shown = [inspect(client, { depth: 10 }), inspect(client, { depth: 10, showHidden: true }), JSON.stringify(client)].join('\n');
    expectNone(shown, TOKEN, 'k-29-secret');
    expect(inspect(client)).toMatch(/^Client \{/);
    expect(JSON.parse(JSON.stringify(client))).toMatchObject({ baseURL: 'http://127.0.0.1:9/api', headers: { authorization: '[REDACTED]', 'x-api-key': '[REDACTED]' } });
  });
});

describe('KnownSecrets', () => {
  it('scrubs errors in place, also read-only fields and OData-like details, and leaves a frozen one be', () => {
    const secrets = new KnownSecrets().add('s3cret-value-29');
    const error = new Error('failed: s3cret-value-29');
    Object.defineProperty(error, 'detail', { value: 'echo s3cret-value-29', enumerable: true, writable: false, configurable: true });
    Object.assign(error, { details: [{ message: 'again s3cret-value-29' }], cause: new Error('cause s3cret-value-29') });
    secrets.scrubError(error);
    expect(JSON.stringify({ m: error.message, s: error.stack, ...error, c: (error.cause as Error).message })).not.toContain('s3cret-value-29');
    const frozen = Object.freeze(new Error('frozen s3cret-value-29'));
    expect(secrets.scrubError(frozen)).toBe(frozen);
  });

  it('replaces a short value only where it stands alone, and keeps the latest 64 recent values', () => {
    const secrets = new KnownSecrets().add('pw');
    expect(secrets.scrub('pw is pwned, "pw"')).toBe('[REDACTED] is pwned, "[REDACTED]"');
    for (let i = 0; i < 70; i++) secrets.addRecent(`recent-token-${i}-xyz`);
    expect(secrets.size).toBe(65);
    expect(secrets.scrub('recent-token-0-xyz recent-token-69-xyz')).toBe('recent-token-0-xyz [REDACTED]');
  });
});
