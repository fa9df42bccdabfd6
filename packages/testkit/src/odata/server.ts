// startODataServer: the v4 and v2 demo services on one node:http server on 127.0.0.1.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { RecordedRequest } from '../http-server.js';
import { ResultCache } from './collection.js';
import { FaultState, type ODataFaults } from './faults.js';
import { PageCache } from './page-cache.js';
import { V2_ROOT_PATH, V4_ROOT_PATH, route } from './router.js';

/** Options of {@link startODataServer}. */
export interface ODataServerOptions {
  /** Number of generated Products rows (default 1000); rows are computed, never stored. */
  products?: number;
  /** Server-driven page size (default 100); a v4 client's `Prefer: odata.maxpagesize=N` lowers it. */
  pageSize?: number;
  /** Faults in force from the start; replace them later with `setFaults`. */
  faults?: ODataFaults;
  /** Port to listen on (default 0: a free port). */
  port?: number;
  /**
   * Keep serialized collection pages in memory up to this many bytes (default 0: off), so that a
   * benchmark reading the same pages round after round pays for serialization once. Leave it off
   * when measuring memory in the same process.
   */
  cacheBytes?: number;
  /**
   * Decides whether a request may be served (such as {@link bearerAuthorizer} for OAuth); a refused one
   * is answered 401 with `WWW-Authenticate: Bearer` and an OData error body. Default: every request.
   */
  authorize?: (req: IncomingMessage) => boolean | Promise<boolean>;
}

/** A running OData test server. */
export interface ODataTestServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  /** The v4 service root, with a trailing slash. */
  readonly v4: string;
  /** The v2 (SAP gateway style) service root, with a trailing slash. */
  readonly v2: string;
  /** Every request so far in arrival order (method, URL as on the request line, headers, time). */
  readonly requests: RecordedRequest[];
  /** Replaces the fault settings and resets their counters. */
  setFaults(faults: ODataFaults): void;
  /** Destroys open connections and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts the OData test server: the demo data model (Products, Categories, OrderItems) as an OData v4
 * service and as an SAP-gateway-style OData v2 service, with server-driven paging, `$metadata`,
 * keys, `$count`, the common query options and injectable faults.
 *
 * @example
 * ```ts
 * const srv = await startODataServer({ products: 1000, pageSize: 100 });
 * const page = await (await fetch(`${srv.v4}Products?$top=5`)).json();
 * await srv.close();
 * ```
 */
export async function startODataServer(options: ODataServerOptions = {}): Promise<ODataTestServer> {
  const products = options.products ?? 1000;
  const pageSize = options.pageSize ?? 100;
  if (!Number.isSafeInteger(products) || products < 0) throw new RangeError(`products must be a non-negative integer, got ${products}`);
  if (!Number.isSafeInteger(pageSize) || pageSize < 1) throw new RangeError(`pageSize must be a positive integer, got ${pageSize}`);
  const requests: RecordedRequest[] = [];
  const faults = new FaultState(options.faults);
  const sockets = new Set<Socket>();
  const cacheBytes = options.cacheBytes ?? 0;
  const ctx = {
    origin: '', sizes: { products }, pageSize, faults, cache: new ResultCache(),
    ...(cacheBytes > 0 ? { pages: new PageCache(cacheBytes) } : {}),
  };
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', at: performance.now() });
    // the service is read-only: drain any request body so keep-alive connections stay usable
    req.resume();
    const authorize = options.authorize;
    if (authorize === undefined) {
      route(req, res, ctx).catch(() => res.destroy());
      return;
    }
    Promise.resolve(authorize(req)).then((allowed) => {
      if (allowed) return route(req, res, ctx);
      // RFC 6750 3.1: a missing or invalid token is answered 401 with a Bearer challenge.
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' });
      res.end(JSON.stringify({ error: { code: 'Unauthorized', message: 'a valid bearer token is required' } }));
      return undefined;
    }).catch(() => res.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  ctx.origin = `http://127.0.0.1:${port}`;
  return {
    origin: ctx.origin,
    port,
    v4: `${ctx.origin}${V4_ROOT_PATH}`,
    v2: `${ctx.origin}${V2_ROOT_PATH}`,
    requests,
    setFaults: (f) => faults.set(f),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
