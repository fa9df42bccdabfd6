// Starts the interop CAP service for the tests: OData v4 at /odata/v4/interop/, CAP's v2 adapter in front
// of it at /odata/v2/interop/, an in-memory SQLite database seeded with deterministic rows, listening on
// 127.0.0.1 on a free port. Run as a child process by test/support/cap-server.ts: it reports its port
// over IPC and exits when its parent disconnects, so it never outlives the test run.
import cds from '@sap/cds';
import cov2ap from '@cap-js-community/odata-v2-adapter';
import http from 'node:http';
import process from 'node:process';
import { seed } from './seed.js';

const report = (message) => (process.send ? process.send(message) : process.stdout.write(`${JSON.stringify(message)}\n`));
process.on('disconnect', () => process.exit(0));

try {
  cds.on('bootstrap', (app) => {
    // cds.server() calls app.listen(port), which binds every interface: bind loopback only.
    app.listen = function listen(port) {
      return http.createServer(this).listen(port, '127.0.0.1');
    };
    app.use(cov2ap({ target: 'auto' }));
  });
  cds.on('served', () => seed());
  const server = await cds.server({ port: 0, in_memory: true, index: false, favicon: false, static: false });
  await new Promise((resolve, reject) => {
    if (server.listening) resolve();
    else server.once('listening', resolve).once('error', reject);
  });
  const { port } = server.address();
  // What `cds serve` does after listening: the v2 adapter registers its routes and learns its target here.
  await cds.emit('listening', { server, url: `http://127.0.0.1:${port}` });
  report({ port });
} catch (err) {
  report({ error: String(err?.stack ?? err) });
  process.exit(1);
}
