// The core client against a small local API: `node --import tsx examples/core-quickstart.ts`
import { createClient, HttpError, PathBuilder } from '@sluice/core';
import { startUsersAPI } from './demo-servers.js'; // a local stand-in for your API

const api = await startUsersAPI();
const baseURL = api.baseURL; // your API's base URL, such as 'https://api.example.com/v1'

const client = createClient({ baseURL, timeout: 5000, retry: { maxAttempts: 3, waitBase: 100 } });
const user = await client.getJSON<{ id: number; name: string }>(new PathBuilder('users').add(42).toString());
console.log('GET users/42 ->', user);
try {
  await client.get('users/7');
} catch (error) {
  if (error instanceof HttpError) console.log(`GET users/7 -> HttpError ${error.status}: ${error.bodyExcerpt}`);
}
await client.close();
await api.close();
