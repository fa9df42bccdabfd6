// Issue 29: a failed $batch part that echoes the credential (message, details, a header) must not carry it:
// the part's error is built from the batch body, outside the core client's own error path.
import { inspect } from 'node:util';
import { startServer } from '@sluice/testkit';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../core/test/close-after-each.js';
import { createODataClient } from '../src/index.js';

const track = closeAfterEach();

const TOKEN = 'odata-29-token-1b2c3d4e';
const CRLF = '\r\n';

function refusal(token: string): { headers: Record<string, string>; body: object } {
  return {
    headers: { 'content-type': 'application/json', 'www-authenticate': `Bearer error_description="${token} expired"` },
    body: { error: { code: 'AUTH', message: `the credential ${token} is not valid`, details: [{ code: 'D', message: `token ${Buffer.from(token).toString('base64')}` }] } },
  };
}

describe('a failed $batch part does not carry a credential the service echoes', () => {
  for (const format of ['json', 'multipart'] as const) {
    it(`${format}: the part's ODataError (message, details, headers) has it scrubbed`, async () => {
      const server = track(await startServer((req, res, body) => {
        const token = String(req.headers.authorization).replace(/^Bearer /, '');
        const { headers, body: error } = refusal(token);
        if (format === 'json') {
          const ids = (JSON.parse(body) as { requests: { id: string }[] }).requests.map((r) => r.id);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ responses: ids.map((id) => ({ id, status: 401, headers, body: error })) }));
          return;
        }
        const part = ['--b_resp', 'Content-Type: application/http', '', 'HTTP/1.1 401 Unauthorized',
          ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`), '', JSON.stringify(error), '--b_resp--', ''].join(CRLF);
        res.writeHead(200, { 'content-type': 'multipart/mixed; boundary=b_resp' });
        res.end(part);
      }));
      const od = track(createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false, headers: { authorization: `Bearer ${TOKEN}` } } }));
      const batch = od.batch();
      const read = batch.get(od.from('Orders').key(1));
      const [result] = await batch.send({ format });
      expect(result!.ok).toBe(false);
      const error = result!.error!;
      expect(error.message).toContain('the credential [REDACTED] is not valid');
      const shown = [inspect(error, { depth: 6 }), JSON.stringify(error), JSON.stringify(error.details), JSON.stringify(error.headers), inspect(read.result, { depth: 6 })].join('\n');
      for (const form of [TOKEN, Buffer.from(TOKEN).toString('base64')]) expect(shown).not.toContain(form);
    });
  }
});

describe('errors the stream parser builds from body excerpts do not carry a credential the service echoes', () => {
  /** A server answering Orders with `page(token)`, the bearer token it was sent put into the body. */
  async function echoing(page: (token: string) => string, authorization = `Bearer ${TOKEN}`) {
    const server = track(await startServer((req, res) => {
      const token = String(req.headers.authorization).replace(/^Bearer /, '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(page(token));
    }));
    return track(createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', pageRetries: 0, http: { retry: false, headers: { authorization } } }));
  }

  const password = 's3cr3t-pw';
  it.each([
    // RecordDecodeError: its message and excerpt (the record's text)
    ['a record that is no JSON', (token: string) => `{"value":[{"ID":1},{"ID":2,"Note":the credential ${token} is not valid}]}`, `Bearer ${TOKEN}`, TOKEN],
    // PageError and its cause: JSON.parse quotes the body where it stopped; a short password fits whole in it
    ['a page whose envelope is no JSON', () => `{"value":[{"ID":1}],"@odata.count":${password}}`, `Basic ${Buffer.from(`ann:${password}`).toString('base64')}`, password],
  ] as const)('%s', async (_what, page, authorization, secret) => {
    const od = await echoing(page, authorization);
    const errors: Error[] = [];
    for await (const item of od.from('Orders').stream()) if (item.error !== undefined) errors.push(item.error);
    expect(errors).toHaveLength(1);
    const shown = [errors[0]!.message, inspect(errors[0], { depth: 6 }), JSON.stringify(errors[0])].join('\n');
    expect(shown).toContain('[REDACTED]');
    expect(shown).not.toContain(secret);
  });
});

describe('parse errors of write and batch answers do not carry a credential the service echoes', () => {
  const password = 's3cr3t-pw';
  const authorization = `Basic ${Buffer.from(`ann:${password}`).toString('base64')}`;

  it.each([
    ['a JSON $batch answer', 'application/json', `{"responses":[${password}]}`],
    ['a create() answer', 'application/json', `{"ID":${password}}`],
  ] as const)('%s that is no JSON', async (what, type, body) => {
    const server = track(await startServer((_req, res) => {
      res.writeHead(what.includes('batch') ? 200 : 201, { 'content-type': type });
      res.end(body);
    }));
    const od = track(createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false, headers: { authorization } } }));
    let error: unknown;
    if (what.includes('batch')) {
      const batch = od.batch();
      batch.get(od.from('Orders').key(1));
      error = await batch.send({ format: 'json' }).catch((e: unknown) => e);
    } else {
      error = await od.from('Orders').create({ ID: 1 }).catch((e: unknown) => e);
    }
    expect(error).toBeInstanceOf(Error);
    const shown = [(error as Error).message, inspect(error, { depth: 6 }), JSON.stringify(error)].join('\n');
    expect(shown).not.toContain(password);
  });
});
