// `npx tsx examples/odata-typed.ts`: a client typed by its service on the embedded demo service (v4).
// The spec below is what `sluice generate` writes from the service's $metadata (written by hand here, for a
// part of the service); with it, set, property, key, navigation and operation names and value types are
// checked by the compiler. The model is given ahead (`metadata`), so no $metadata is downloaded at run time.
import { createODataClient, parseEdmx, toServiceModel, type EmptyMap } from '@sluice/odata';
import { startODataServer } from './demo-servers.js'; // the local demo service

interface Category { ID: number; Name: string }
interface Product { ID: number; Name: string; Description: string | null; Price: string; Stock: string; CategoryID: number }
interface Order { ID: number; Customer: string; Amount: string; Quantity: string; Status: string; ModifiedAt: string }
interface NoOperations { actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap }

interface CategorySpec extends NoOperations {
  props: Category; key: { ID: number }; edm: { ID: 'Edm.Int32'; Name: 'Edm.String' }
  nav: { Products: { target: ProductSpec; many: true } }; computed: never; immutable: 'ID'
}
interface ProductSpec extends NoOperations {
  props: Product; key: { ID: number }
  edm: { ID: 'Edm.Int32'; Name: 'Edm.String'; Description: 'Edm.String'; Price: 'Edm.Decimal'; Stock: 'Edm.Int64'; CategoryID: 'Edm.Int32' }
  nav: { Category: { target: CategorySpec; many: false } }; computed: never; immutable: 'ID'
}
interface OrderSpec {
  props: Order; key: { ID: number }
  edm: { ID: 'Edm.Int32'; Customer: 'Edm.String'; Amount: 'Edm.Decimal'; Quantity: 'Edm.Int64'; Status: 'Edm.String'; ModifiedAt: 'Edm.DateTimeOffset' }
  nav: EmptyMap; computed: 'ModifiedAt'; immutable: 'ID' | 'ModifiedAt'
  actions: { 'Demo.Approve': { params: { Comment?: string | null }; returns: Order } }
  functions: EmptyMap; collectionActions: EmptyMap
  collectionFunctions: { 'Demo.TotalAmount': { params: EmptyMap; returns: string } }
}
interface Demo {
  entitySets: { Products: ProductSpec; Categories: CategorySpec; Orders: OrderSpec }
  singletons: EmptyMap
  actions: EmptyMap
  functions: { Echo: { params: { Text: string; Count: number }; returns: string } }
}

const service = await startODataServer({ products: 50, writes: true });
// What `sluice generate --runtime` writes into a module: the parsed model as plain JSON.
const model = toServiceModel(parseEdmx(await (await fetch(`${service.v4}$metadata`)).text()));
const od = createODataClient<Demo>({ serviceURL: service.v4, metadata: model });
try {
  const cheap = od.from('Products')
    .filter((f) => f.and(f.lt('Price', 300), f.ge('Stock', '1'), f.startswith('Name', 'Product')))
    .select('ID', 'Name', 'Price').expand('Category', { select: ['Name'] }).orderBy('Price desc').top(3);
  console.log(`query:    ${decodeURIComponent(cheap.toURL())}`);
  for (const p of await cheap.list()) console.log(`          ${p.ID}  ${p.Name}  ${p.Price}  (${p.Category?.Name ?? '-'})`);

  const category = await od.from('Products').key(7).nav('Category').get();
  console.log(`nav:      product 7 is in ${category.Name}`);

  const { value: order, etag } = await od.from('Orders').create({ Customer: 'Typed Ltd', Amount: '19.90', Quantity: '2' });
  console.log(`create:   order ${order?.ID} (${etag})`);
  const approved = await od.from('Orders').key(order!.ID).action('Demo.Approve', { Comment: 'typed' }).execute({ etag: order! });
  console.log(`action:   ${approved.value?.Status}`);
  console.log(`function: total ${await od.from('Orders').function('Demo.TotalAmount').execute()}, echo ${await od.function('Echo', { Text: 'hi', Count: 2 }).execute()}`);
  const metadataRequests = service.requests.filter((r) => r.url.includes('$metadata')).length;
  console.log(`requests: ${service.requests.length}, of which $metadata: ${metadataRequests} (the example's own fetch for the model)`);
} finally {
  await od.close();
  await service.close();
}
