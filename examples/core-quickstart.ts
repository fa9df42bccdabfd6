// The core client against a small local API it starts itself: `node --import tsx examples/core-quickstart.ts`
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, HttpError, PathBuilder } from '../packages/core/src/index.js';

const users = new Map([[42, { id: 42, name: 'Ada Lovelace' }]]);
const server = createServer((req, res) => {
  const id = Number(req.url?.split('/').pop());
  const user = users.get(id);
  res.writeHead(user ? 200 : 404, { 'content-type': 'application/json' });
  res.end(JSON.stringify(user ?? { error: 'not found' }));
}).listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;

const client = createClient({ baseURL, timeout: 5000, retry: { maxAttempts: 3, waitBase: 100 } });
const user = await client.getJSON<{ id: number; name: string }>(new PathBuilder('users').add(42).toString());
console.log('GET users/42 ->', user);
try {
  await client.get('users/7');
} catch (error) {
  if (error instanceof HttpError) console.log(`GET users/7 -> HttpError ${error.status}: ${error.bodyExcerpt}`);
}
await client.close();
server.close();
