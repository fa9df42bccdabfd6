import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTLSServer, type ServerOptions as TLSServerOptions } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/** A request as the test server saw it. */
export interface RecordedRequest {
  method: string;
  /** Path and query exactly as sent on the request line. */
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  /** `performance.now()` when the request arrived. */
  at: number;
  /** Common name of the client certificate, on an https server that asked for one. */
  clientCertificate?: string;
}

/** Options of {@link startServer}. */
export interface TestServerOptions {
  /** Serve https with these node:https options (`cert`, `key`, and `ca` + `requestCert` for mutual TLS). */
  tls?: TLSServerOptions;
}

/** Handles one request; the body is already read into `body`. */
export type TestHandler = (req: IncomingMessage, res: ServerResponse, body: string) => void | Promise<void>;

/** A node:http (or node:https) server on 127.0.0.1 with a free port, recording every request it receives. */
export interface TestServer {
  /** `http://127.0.0.1:<port>` (`https://` with the `tls` option) */
  readonly origin: string;
  readonly port: number;
  readonly server: Server;
  /** Every request so far, in arrival order. */
  readonly requests: RecordedRequest[];
  /** Connections accepted so far. */
  connections(): number;
  /** Destroys open sockets and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts a node:http server on 127.0.0.1 that records requests and hands each one to `handler`.
 * Exceptions in the handler answer 500 so a test fails loudly rather than hanging. With `tls` it serves
 * https (see `createTestPKI` for certificates).
 */
export async function startServer(handler: TestHandler, options: TestServerOptions = {}): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const peer = options.tls === undefined ? undefined : (req.socket as TLSSocket).getPeerCertificate();
      const clientCertificate = typeof peer?.subject?.CN === 'string' ? peer.subject.CN : undefined;
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, at: performance.now(), clientCertificate });
      Promise.resolve(handler(req, res, body)).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(error));
      });
    });
  };
  const server: Server = options.tls === undefined ? createServer(listener) : createTLSServer(options.tls, listener);
  // Refused handshakes (a client without a certificate) are the test's subject, not a server failure.
  server.on('tlsClientError', () => undefined);
  server.on('connection', (socket: Socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    port,
    server,
    requests,
    connections: () => accepted,
    close: () => new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Answers with a JSON body and status. */
export function sendJSON(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}
