// $batch: a create addressed through a Content-ID reference (`POST $1/Orders`) answered with a relative
// Location resolves against the request URL with `$1` replaced by the Location of operation 1 (OData 4.01
// Part 1 section 11.7.7.2), in the multipart and the JSON batch format. A node:http server answers as a
// service that gives relative Locations would.
import { startServer, type TestServer } from '@sluice/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { createODataClient, type BatchOperation, type ODataClient } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const CRLF = '\r\n';

function multipartAnswer(locations: readonly string[]): { type: string; body: string } {
  const cs = 'cs_resp';
  const parts = locations.map((location, i) => [
    `--${cs}`, 'Content-Type: application/http', `Content-ID: ${i + 1}`, '',
    'HTTP/1.1 201 Created', `Location: ${location}`, 'Content-Type: application/json', '', JSON.stringify({ ID: 1 }),
  ].join(CRLF));
  const changeset = [...parts, `--${cs}--`, ''].join(CRLF);
  const body = ['--b_resp', `Content-Type: multipart/mixed; boundary=${cs}`, '', changeset, '--b_resp--', ''].join(CRLF);
  return { type: 'multipart/mixed; boundary=b_resp', body };
}

describe('Location of a create addressed through a Content-ID reference', () => {
  for (const format of ['multipart', 'json'] as const) {
    it(`${format}: a relative Location resolves against the referenced entity's Location`, async () => {
      const server = await startServer((_req, res, body) => {
        const locations = ['Customers(1)', 'Orders(1)'];
        if (format === 'json') {
          const ids = (JSON.parse(body) as { requests: { id: string; url: string }[] }).requests.map((r) => r.id);
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ responses: ids.map((id, i) => ({ id, status: 201, headers: { location: locations[i] }, body: { ID: 1 } })) }));
          return;
        }
        const answer = multipartAnswer(locations);
        res.writeHead(200, { 'content-type': answer.type });
        res.end(answer.body);
      });
      servers.push(server);
      const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: false } });
      clients.push(od);
      const batch = od.batch();
      let customer: BatchOperation | undefined;
      let order: BatchOperation | undefined;
      batch.changeset((cs) => {
        customer = cs.create(od.from('Customers'), { ID: 1 });
        order = cs.create(customer.ref().nav('Orders'), { ID: 1 });
      });
      await batch.send({ format });
      const sent = server.requests[0]!.body;
      expect(sent).toContain('$1/Orders');
      expect(customer!.result.location).toBe(`${server.origin}/svc/Customers(1)`);
      expect(order!.result.location).toBe(`${server.origin}/svc/Customers(1)/Orders(1)`);
    });
  }
});
