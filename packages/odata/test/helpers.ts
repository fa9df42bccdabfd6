// Shared by the OData read tests: a node:http server answering by path+query, and stream helpers.
import { startServer, type TestHandler, type TestServer } from '@sluice/testkit';
import type { ServerResponse } from 'node:http';
import { afterEach } from 'vitest';
import { createODataClient, type ODataClient, type StreamItem } from '../src/index.js';

const servers: TestServer[] = [];
const clients: ODataClient[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/**
 * A server answering `/svc/$metadata` with `metadataXML` and every other request with `answer`, and a client of
 * `version` on it with `$metadata` loaded; both closed after each test.
 */
export async function metadataService(
  version: '2.0' | '4.0', metadataXML: string, answer: TestHandler,
): Promise<{ server: TestServer; od: ODataClient }> {
  const server = await startServer((req, res, body) => {
    if (req.url !== '/svc/$metadata') return answer(req, res, body);
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(metadataXML);
  });
  servers.push(server);
  const od = createODataClient({ serviceURL: `${server.origin}/svc/`, version, http: { retry: false } });
  clients.push(od);
  await od.metadata();
  return { server, od };
}

/** Answers one request; `attempt` counts requests to the same URL (1-based). */
export type Handler = (res: ServerResponse, url: string, attempt: number) => void | Promise<void>;

/** A server answering by path+query (404 with an OData error otherwise); closed after each test. */
export async function serve(routes: Record<string, Handler>): Promise<TestServer> {
  const counts = new Map<string, number>();
  const server = await startServer((req, res) => {
    const url = req.url ?? '';
    const n = (counts.get(url) ?? 0) + 1;
    counts.set(url, n);
    const handler = routes[url];
    if (!handler) { res.writeHead(404, { 'content-type': 'application/json' }); res.end(JSON.stringify({ error: { code: 'NotFound', message: url } })); return; }
    return handler(res, url, n);
  });
  servers.push(server);
  return server;
}

/** Answers 200 with a JSON body (a string is sent as it is). */
export const json = (res: ServerResponse, body: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(200, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** Records `{ ID: from }` .. `{ ID: to }`. */
export const records = (from: number, to: number): { ID: number }[] => Array.from({ length: to - from + 1 }, (_, i) => ({ ID: from + i }));

/** A v4 client on `<server>/svc/` without core retries. */
export function client(server: TestServer, extra: Partial<Parameters<typeof createODataClient>[0]> = {}) {
  return createODataClient({
    serviceURL: `${server.origin}/svc/`, version: '4.0', http: { retry: { maxAttempts: 1, waitBase: 1, maxWait: 2 } }, ...extra,
  });
}

/** Every item of a stream. */
export async function collect<T>(items: AsyncIterable<StreamItem<T>>): Promise<StreamItem<T>[]> {
  const out: StreamItem<T>[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** The IDs of the records among stream items. */
export const ids = (items: StreamItem<{ ID: number }>[]): number[] => items.flatMap((i) => (i.error === undefined ? [i.value.ID] : []));

/**
 * Page `/svc/P` (records 1-2) links to page 2 (records 3-6), whose first answer sends `broken` and then
 * destroys the socket; later answers are whole.
 */
export async function brokenSecondPage(broken: string): Promise<TestServer> {
  let origin = '';
  const server = await serve({
    '/svc/P': (res) => json(res, { value: records(1, 2), '@odata.nextLink': `${origin}/svc/P?p=2` }),
    '/svc/P?p=2': (res, _url, attempt) => {
      if (attempt > 1) return json(res, { value: records(3, 6) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(broken, () => res.destroy());
    },
  });
  origin = server.origin;
  return server;
}
