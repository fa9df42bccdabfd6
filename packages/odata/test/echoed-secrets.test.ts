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
