// Starts the OData test server for manual use or as a benchmark's separate process:
// `PORT=4004 PRODUCTS=200000 PAGE_SIZE=1000 node --import tsx packages/testkit/src/odata/main.ts`.
import { startODataServer } from './server.js';

const env = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a non-negative integer`);
  return value;
};
const srv = await startODataServer({
  port: env('PORT', 4004),
  products: env('PRODUCTS', 1000),
  pageSize: env('PAGE_SIZE', 100),
  cacheBytes: env('CACHE_BYTES', 0),
});
console.log(`OData v4: ${srv.v4}`);
console.log(`OData v2: ${srv.v2}`);
const stop = (): void => { void srv.close().then(() => process.exit(0)); };
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
