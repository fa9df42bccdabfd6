// startODataServer: the v4 and v2 demo services on one node:http server on 127.0.0.1.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { RecordedRequest } from '../http-server.js';
import { BATCH_PART_HEADER } from './batch/execute.js';
import { ResultCache } from './collection.js';
import { FaultState, type ODataFaults } from './faults.js';
import { PageCache } from './page-cache.js';
import { V2_ROOT_PATH, V4_ROOT_PATH, route } from './router.js';
import { readRequestBody } from './write/exchange.js';
import { WriteService, type ODataWriteControl, type ODataWriteOptions } from './write/write-service.js';

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
  /**
   * Adds the writable part: `Orders`/`OrderLines` with create, update, replace and delete under ETags,
   * actions, functions and async jobs; `{ csrf: true }` checks CSRF tokens like an ABAP gateway.
   */
  writes?: boolean | ODataWriteOptions;
  /** Serve https with these node:https options (`cert`, `key`; `ca` + `requestCert` for mutual TLS). */
  tls?: HttpsServerOptions;
}

/** A running OData test server. */
export interface ODataTestServer {
  /** `http://127.0.0.1:<port>` (`https://` with the `tls` option) */
  readonly origin: string;
  readonly port: number;
  /** The v4 service root, with a trailing slash. */
  readonly v4: string;
  /** The v2 (SAP gateway style) service root, with a trailing slash. */
  readonly v2: string;
  /** Every request so far in arrival order (method, URL as on the request line, headers, time). */
  readonly requests: RecordedRequest[];
  /** The writable part's state and controls, when started with `writes`. */
  readonly writes: ODataWriteControl | undefined;
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
    ...(options.writes ? { writes: new WriteService(options.writes === true ? {} : options.writes) } : {}),
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const recorded = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '', at: performance.now() };
    // The loopback requests a $batch runs its parts as are not requests of the client.
    if (req.headers[BATCH_PART_HEADER] === undefined) requests.push(recorded);
    // read (or, for reads, drain) the body so keep-alive connections stay usable
    const body = readRequestBody(req).then((text) => (recorded.body = text));
    const authorize = options.authorize;
    if (authorize === undefined) {
      body.then((text) => route(req, res, ctx, text)).catch(() => res.destroy());
      return;
    }
    Promise.all([authorize(req), body]).then(([allowed, text]) => {
      if (allowed) return route(req, res, ctx, text);
      // RFC 6750 3.1: a missing or invalid token is answered 401 with a Bearer challenge.
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"' });
      res.end(JSON.stringify({ error: { code: 'Unauthorized', message: 'a valid bearer token is required' } }));
      return undefined;
    }).catch(() => res.destroy());
  };
  const server = options.tls === undefined ? createServer(handle) : createHttpsServer(options.tls, handle);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const port = (server.address() as AddressInfo).port;
  ctx.origin = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  return {
    origin: ctx.origin,
    port,
    v4: `${ctx.origin}${V4_ROOT_PATH}`,
    v2: `${ctx.origin}${V2_ROOT_PATH}`,
    requests,
    writes: ctx.writes,
    setFaults: (f) => faults.set(f),
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
