// A port for a server the testkit starts as a child process (PostgreSQL, redis-server): taken from the
// system on 127.0.0.1 and closed again, so the child can bind it (a start that loses the race retries).
import { createServer } from 'node:net';

/** A 127.0.0.1 port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no free port');
  return address.port;
}
