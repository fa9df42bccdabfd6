// A loopback server answering every request with the same small JSON document. Run in a child process
// so that the server's CPU is not charged to the client under test. Prints its port on stdout.
import { createServer } from 'node:http';

const body = JSON.stringify({ id: 42, name: 'Ada Lovelace', email: 'ada@example.com', active: true, roles: ['admin', 'dev'] });
const length = Buffer.byteLength(body);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('disconnect', () => process.exit(0));
