import { describe, expect, it } from 'vitest';
import { BatchFormatError } from '../src/batch/errors.js';
import { encodeJsonBatch, readJsonBatch } from '../src/batch/json.js';
import { encodeMultipart } from '../src/batch/multipart.js';
import { boundaryOf, readMultipart } from '../src/batch/multipart-parse.js';
import type { BatchGroup } from '../src/batch/types.js';

// The example of OData 4.01 Part 1 (Protocol) section 11.7.7.1 "Multipart Batch Request Body": a GET,
// a changeset with a POST (Content-ID 1) and a PATCH (Content-ID 2, If-Match), then another GET, with the
// boundaries of the specification. Transcribed by hand, with the parts as sluice writes them: URLs relative
// to the service root (allowed by 11.7.7.1), Content-Transfer-Encoding: binary (as in OData 4.0's example),
// no Host header (the batch request's own applies), JSON bodies instead of the placeholders.
const B = 'batch_36522ad7-fc75-4b56-8c71-56071383e77b';
const C = 'changeset_77162fcd-b8da-41ac-a9f8-9357efbbd';
const boundaries = { batch: B, changeset: () => C };
const specGroups: BatchGroup[] = [
  { kind: 'single', request: { method: 'GET', url: "Customers('ALFKI')", headers: {} } },
  {
    kind: 'changeset', requests: [
      { method: 'POST', url: 'Customers', headers: { 'content-type': 'application/json' }, body: { CustomerID: 'NEWCO' }, contentId: '1' },
      { method: 'PATCH', url: "Customers('ALFKI')", headers: { 'content-type': 'application/json', 'if-match': 'xxxxx' }, body: { City: 'Berlin' }, contentId: '2' },
    ],
  },
  { kind: 'single', request: { method: 'GET', url: 'Products', headers: {} } },
];
const specBody = [
  `--${B}`,
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  "GET Customers('ALFKI') HTTP/1.1",
  '',
  '',
  `--${B}`,
  `Content-Type: multipart/mixed;boundary=${C}`,
  '',
  `--${C}`,
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  'Content-ID: 1',
  '',
  'POST Customers HTTP/1.1',
  'Content-Type: application/json',
  '',
  '{"CustomerID":"NEWCO"}',
  `--${C}`,
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  'Content-ID: 2',
  '',
  "PATCH Customers('ALFKI') HTTP/1.1",
  'Content-Type: application/json',
  'If-Match: xxxxx',
  '',
  '{"City":"Berlin"}',
  `--${C}--`,
  `--${B}`,
  'Content-Type: application/http',
  'Content-Transfer-Encoding: binary',
  '',
  'GET Products HTTP/1.1',
  '',
  '',
  `--${B}--`,
  '',
].join('\r\n');

// The response example of section 11.7.7.2 in the same way: 200 for the GET, the changeset's 201 and 204
// with their Content-IDs, and 404 for the last GET.
const RB = 'b_243234_25424_ef_892u748';
const RC = 'cs_12u7hdkin252452345eknd_383673037';
const specResponse = [
  `--${RB}`,
  'Content-Type: application/http',
  '',
  'HTTP/1.1 200 Ok',
  'Content-Type: application/json',
  '',
  '{"CustomerID":"ALFKI"}',
  `--${RB}`,
  `Content-Type: multipart/mixed;boundary=${RC}`,
  '',
  `--${RC}`,
  'Content-Type: application/http',
  'Content-ID: 1',
  '',
  'HTTP/1.1 201 Created',
  'Content-Type: application/json',
  "Location: http://host/service.svc/Customer('POIUY')",
  '',
  '{"CustomerID":"POIUY"}',
  `--${RC}`,
  'Content-Type: application/http',
  'Content-ID: 2',
  '',
  'HTTP/1.1 204 No Content',
  '',
  '',
  `--${RC}--`,
  `--${RB}`,
  'Content-Type: application/http',
  '',
  'HTTP/1.1 404 Not Found',
  'Content-Type: application/json',
  '',
  '{"error":{"code":"NotFound","message":"no Products"}}',
  `--${RB}--`,
  '',
].join('\r\n');

async function* chunks(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = Buffer.from(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

describe('multipart batch wire format', () => {
  it('writes the specification example byte for byte', () => {
    expect(encodeMultipart(specGroups, boundaries)).toBe(specBody);
  });

  it('reads the specification response example, whatever the chunking', async () => {
    for (const size of [1, 7, 64, 100_000]) {
      const groups = await readMultipart(chunks(specResponse, size), `multipart/mixed; boundary=${RB}`, specGroups, 200);
      expect(groups.map((g) => g.map((r) => r.status))).toEqual([[200], [201, 204], [404]]);
      expect(groups[0]![0]!.body).toBe('{"CustomerID":"ALFKI"}');
      expect(groups[1]![0]!.headers['location']).toBe("http://host/service.svc/Customer('POIUY')");
      expect(groups[1]!.map((r) => r.contentId)).toEqual(['1', '2']);
      expect(groups[1]![1]!.body).toBe('');
    }
  });

  it('reads a failed changeset answered by one error part', async () => {
    const text = [`--${RB}`, 'Content-Type: application/http', '', 'HTTP/1.1 200 OK', '', '{}', `--${RB}`, 'Content-Type: application/http', '',
      'HTTP/1.1 412 Precondition Failed', 'Content-Type: application/json', '', '{"error":{"code":"x","message":"y"}}', `--${RB}`,
      'Content-Type: application/http', '', 'HTTP/1.1 200 OK', '', '[]', `--${RB}--`].join('\r\n');
    const groups = await readMultipart(chunks(text, 5), `multipart/mixed;boundary="${RB}"`, specGroups, 200);
    expect(groups.map((g) => g.map((r) => r.status))).toEqual([[200], [412], [200]]);
  });

  it('names a wrong boundary, a truncated body and a part count mismatch', async () => {
    const wrong = readMultipart(chunks(specResponse, 50), 'multipart/mixed;boundary=other', specGroups, 200);
    await expect(wrong).rejects.toThrow(BatchFormatError);
    await expect(wrong).rejects.toThrow(/does not contain its boundary 'other'/);
    await expect(readMultipart(chunks(specResponse.slice(0, 300), 50), `multipart/mixed;boundary=${RB}`, specGroups, 200)).rejects.toThrow(/truncated: part 2/);
    await expect(readMultipart(chunks(specResponse, 50), `multipart/mixed;boundary=${RB}`, specGroups.slice(0, 2), 200)).rejects.toThrow(/more parts than the 2 requests/);
    const short = [...specGroups, specGroups[0]!];
    await expect(readMultipart(chunks(specResponse, 50), `multipart/mixed;boundary=${RB}`, short, 200)).rejects.toThrow(/has 3 parts for 4 requests/);
    const second = specResponse.indexOf(`--${RC}\r\nContent-Type: application/http\r\nContent-ID: 2`);
    const oneLess = specResponse.slice(0, second) + specResponse.slice(specResponse.indexOf(`--${RC}--`));
    expect(oneLess.length).toBeLessThan(specResponse.length);
    await expect(readMultipart(chunks(oneLess, 50), `multipart/mixed;boundary=${RB}`, specGroups, 200)).rejects.toThrow(/Changeset 2 of the batch response has 1 parts for 2 requests/);
    await expect(readMultipart(chunks(specResponse, 50), 'application/json', specGroups, 200)).rejects.toThrow(/not multipart\/mixed/);
  });

  it('refuses header values that would break the framing', () => {
    const bad: BatchGroup[] = [{ kind: 'single', request: { method: 'GET', url: 'A', headers: { 'x-a': 'b\r\nX-Evil: 1' } } }];
    expect(() => encodeMultipart(bad, boundaries)).toThrow(/line breaks/);
    expect(boundaryOf('multipart/mixed; charset=x; boundary="a b"')).toBe('a b');
  });
});

// OData JSON Format 4.01 section 19.1 "Batch Request": the example's GET, a PATCH in an atomicity group
// and a POST depending on an earlier request via `$1`, transcribed with JSON bodies for the placeholders.
describe('JSON batch wire format', () => {
  const groups: BatchGroup[] = [
    { kind: 'single', request: { method: 'GET', url: "Customers('ALFKI')", headers: {}, contentId: '0' } },
    {
      kind: 'changeset', requests: [
        { method: 'POST', url: 'Customers', headers: { prefer: 'return=minimal' }, body: { CustomerID: 'NEWCO' }, contentId: '1' },
        { method: 'POST', url: '$1/Orders', headers: {}, body: { OrderID: 1 }, contentId: '2' },
      ],
    },
    { kind: 'single', request: { method: 'GET', url: 'Products', headers: {} } },
  ];

  it('writes requests, atomicityGroup and dependsOn', () => {
    expect(JSON.stringify(encodeJsonBatch(groups))).toBe(JSON.stringify({
      requests: [
        { id: '0', method: 'get', url: "Customers('ALFKI')" },
        { id: '1', method: 'post', url: 'Customers', atomicityGroup: 'g1', headers: { prefer: 'return=minimal' }, body: { CustomerID: 'NEWCO' } },
        { id: '2', method: 'post', url: '$1/Orders', atomicityGroup: 'g1', dependsOn: ['1'], body: { OrderID: 1 } },
        { id: 'r1', method: 'get', url: 'Products' },
      ],
    }));
  });

  it('matches responses by id in any order and checks them, however the answer is chunked', async () => {
    const text = JSON.stringify({ responses: [
      { id: 'r1', status: 200, body: { value: [] } },
      { id: '0', status: 200, headers: { 'Content-Type': 'application/json' }, body: { CustomerID: 'ALFKI', Note: 'ü € 😀' } },
      { id: '2', status: 201, body: { OrderID: 1 } },
      { id: '1', status: 204, headers: { Location: "Customers('NEWCO')" } },
    ] });
    for (const size of [1, 3, 7, 64, text.length]) {
      const out = await readJsonBatch(chunks(text, size), groups, 200);
      expect(out.map((g) => g.map((r) => r.status))).toEqual([[200], [204, 201], [200]]);
      expect(out[1]![0]!.headers['location']).toBe("Customers('NEWCO')");
      expect(JSON.parse(out[0]![0]!.body)).toEqual({ CustomerID: 'ALFKI', Note: 'ü € 😀' });
    }
    const read = (t: string) => readJsonBatch(chunks(t, 5), groups, 200);
    const failed = JSON.stringify({ responses: [{ id: '0', status: 200 }, { id: '1', status: 400, body: { error: { code: 'a', message: 'b' } } }, { id: 'r1', status: 200 }] });
    expect((await read(failed)).map((g) => g.length)).toEqual([1, 1, 1]);
    await expect(read(JSON.stringify({ responses: [{ id: '0', status: 200 }] }))).rejects.toThrow(/no response for request 1/);
    await expect(read('{"responses":[')).rejects.toThrow(BatchFormatError);
    await expect(read('{"value":[]}')).rejects.toThrow(/no responses array/);
    await expect(read(JSON.stringify({ responses: [{ id: '0', status: 200 }, { id: '1', status: 200 }, { id: '2', status: 200 }, { id: 'r1', status: 200 }, { id: 'zz', status: 200 }] })))
      .rejects.toThrow(/5 responses for 4 requests/);
  });

  it('bounds one response by maxRecordBytes and the whole answer by maxPageBytes', async () => {
    const big = JSON.stringify({ responses: [
      { id: '0', status: 200, body: { text: 'x'.repeat(5000) } }, { id: '1', status: 204 }, { id: '2', status: 204 }, { id: 'r1', status: 200 },
    ] });
    await expect(readJsonBatch(chunks(big, 1000), groups, 200, { maxRecordBytes: 4096 })).rejects.toMatchObject({ name: 'ResponseSizeError', limit: 'maxRecordBytes' });
    await expect(readJsonBatch(chunks(big, 1000), groups, 200, { maxPageBytes: 3000 })).rejects.toMatchObject({ name: 'ResponseSizeError', limit: 'maxPageBytes' });
    expect(await readJsonBatch(chunks(big, 1000), groups, 200, { maxRecordBytes: 8192, maxPageBytes: 8192 })).toHaveLength(3);
  });

  it('a reference to a request of an earlier atomicity group names that group in dependsOn too', () => {
    const across: BatchGroup[] = [
      { kind: 'changeset', requests: [{ method: 'POST', url: 'Customers', headers: {}, body: {}, contentId: '1' }] },
      { kind: 'changeset', requests: [{ method: 'POST', url: '$1/Orders', headers: {}, body: {}, contentId: '2' }, { method: 'PATCH', url: '$2', headers: {}, body: {}, contentId: '3' }] },
      { kind: 'single', request: { method: 'GET', url: '$1', headers: {} } },
    ];
    expect(encodeJsonBatch(across).requests.map((r) => [r.id, r.atomicityGroup, r.dependsOn])).toEqual([
      ['1', 'g1', undefined], ['2', 'g2', ['g1', '1']], ['3', 'g2', ['2']], ['r1', undefined, ['g1', '1']],
    ]);
    expect(() => encodeJsonBatch([{ kind: 'single', request: { method: 'GET', url: '$9', headers: {} } }])).toThrow(/no earlier request/);
  });
});
