// Type tests of the types generated from the ODataDemo v2 sample (test/generated/odata-demo-v2.ts); see
// trippin.types.ts for how they are checked.
import { createODataClient } from '@sluice/odata';
import type { Category, Product, Service } from '../generated/odata-demo-v2.js';

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
const is = <A>(_value: A) => <B>(ok: Equal<A, B>): Equal<A, B> => ok;

export async function demo(): Promise<void> {
  const od = createODataClient<Service>({ serviceURL: 'https://services.odata.org/V2/OData/OData.svc/', version: '2.0' });
  const products = await od.from('Products').filter((f) => f.and(f.ge('ReleaseDate', new Date('2000-01-01')), f.gt('Price', '2.5'))).orderBy('Rating desc').list();
  is(products)<Product[]>(true);
  const withCategory = await od.from('Products').key(1).expand('Category').get();
  is(withCategory.Category)<Category | null>(true);
  const rated = await od.function('GetProductsByRating', { rating: 4 }).execute();
  is(rated)<Product[]>(true);
  await od.from('Suppliers').key(0).navMany('Products').select('ID', 'Name').list();

  // @ts-expect-error unknown entity set
  od.from('Product');
  // @ts-expect-error unknown property in select
  od.from('Products').select('Title');
  // @ts-expect-error unknown property in filter
  od.from('Products').filter((f) => f.eq('Title', 'x'));
  // @ts-expect-error unknown property in orderBy
  od.from('Categories').orderBy('Title');
  // @ts-expect-error wrong key type (ID is Edm.Int32)
  od.from('Products').key('1');
  // @ts-expect-error wrong value type in a filter (Rating is Edm.Int32)
  od.from('Products').filter((f) => f.eq('Rating', 'high'));
  // @ts-expect-error expand of a non-navigation property
  od.from('Suppliers').expand('Address');
  // @ts-expect-error a function import's parameter by another name
  od.function('GetProductsByRating', { stars: 4 });
}
