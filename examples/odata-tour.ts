// `npx tsx examples/odata-tour.ts`: a tour of the OData client library on the embedded demo service.
// Starts the OData demo service (v4 and an SAP-style v2) on 127.0.0.1, then queries it, streams every record in constant memory while the
// next page is prefetched, survives an injected page failure without losing a record, and reads v2.
import { createODataClient, PageError } from '@sluice/odata';
import { startODataServer } from './demo-servers.js'; // the local demo service (with faults on request)

interface Product { ID: number; Name: string; Price: string; Stock: string; Active: boolean; ReleaseDate: string }

const PRODUCTS = Number(process.env.DEMO_PRODUCTS ?? 200_000);
const service = await startODataServer({ products: PRODUCTS, pageSize: 1000 });
console.log(`demo service: ${service.v4} (v4), ${service.v2} (v2), ${PRODUCTS.toLocaleString('en')} products\n`);

const od = createODataClient({ serviceURL: service.v4 });
try {
  // 1. A typed query: literals are escaped, so "O'Brien" cannot change the query.
  const cheap = od.from<Product>('Products')
    .filter((f) => f.and(f.lt('Price', 20), f.startswith('Name', "O'Brien")))
    .select('ID', 'Name', 'Price')
    .orderBy('Price desc')
    .top(3);
  await od.ready();
  console.log(`query:  ${cheap.toURL()}`);
  for (const p of await cheap.list()) console.log(`        ${p.ID}  ${p.Name}  ${p.Price}`);
  console.log(`count:  ${await od.from('Products').countOnly()} products ($count)\n`);

  // 2. Stream everything: one page in memory, the next one prefetched. On purpose, page 20 answers 503
  //    twice (the core client retries it) and page 50 breaks off mid-body (the stream resumes it).
  service.setFaults({ failPage: { page: 20, status: 503, times: 2 }, resetPage: { page: 50 } });
  const started = performance.now();
  let records = 0;
  let retried = 0;
  for await (const item of od.from<Product>('Products').stream()) {
    if (item.error) {
      if (item.error instanceof PageError && item.error.willRetry) retried++;
      else console.log(`        error: ${item.error.message}`);
      continue;
    }
    records++;
    if (records % 50_000 === 0) {
      console.log(`stream: ${records.toLocaleString('en')} records, RSS ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    }
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`stream: ${records.toLocaleString('en')} records in ${seconds.toFixed(2)} s ` +
    `(${Math.round(records / seconds).toLocaleString('en')} records/s); a broken page was resumed ${retried}× with nothing lost\n`);
  service.setFaults({});

  // 3. The same data as an SAP gateway OData v2 service: verbose JSON read into the same shape (a v2
  //    /Date(ms)/ arrives as ISO text, as v4 writes it).
  const sap = createODataClient({ serviceURL: service.v2 });
  const rows = await sap.from<Product>('Products').filter((f) => f.eq('Active', true)).select('ID', 'Name', 'ReleaseDate')
    .param('sap-client', '100').top(2).list();
  for (const p of rows) console.log(`v2:     ${p.ID}  ${p.Name}  released ${p.ReleaseDate}`);
  await sap.close();
} finally {
  await od.close();
  await service.close();
}
