// Type tests of the types generated from the hand-written documents (test/generated/features-*.ts); see
// trippin.types.ts for how they are checked.
import { createODataClient } from '@sluice/odata';
import type { Color, Product, Service as Shop, Shop_Orders_Product } from '../generated/features-v4.js';
import type { ReleaseResult, SalesOrder, Service as Sales } from '../generated/features-v2.js';
import type { SalesOrder as SalesOrderWithDates, Service as SalesWithDates } from '../generated/features-v2-dates.js';

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
const same = <A, B>(ok: Equal<A, B>): Equal<A, B> => ok;
const is = <A>(_value: A) => <B>(ok: Equal<A, B>): Equal<A, B> => ok;

export async function shop(): Promise<void> {
  const od = createODataClient<Shop>({ serviceURL: 'https://shop.example.com/odata/' });
  same<Product['Price'], string | null>(true);
  same<Product['Colors'], Color>(true);
  same<Product['Unit-Of-Measure'], string | null>(true);
  const lines = await od.from('OrderLines').key({ OrderID: 1, Line: 2 }).expand('Product').get();
  is(lines)<Shop_Orders_Product & { Product: Product | null }>(true);
  await od.from('Products').create({ ID: 1, Name: 'Ale', Tags: [] });
  await od.from('Products').key(1).update({ Name: 'Stout' });
  const discounted = await od.from('Products').key(1).action('Shop.Catalog.Discount', { Percent: 10 }).execute();
  is(discounted.value)<Product | null | undefined>(true);
  await od.from('Products').function('Shop.Catalog.Cheapest').execute();
  const count = await od.function('CountProducts', { MinPrice: '2.50' }).execute();
  is(count)<string>(true);
  await od.function('CountProducts').execute();
  await od.from('Classes').key('a').get();
  await od.singleton('Featured').get();

  // @ts-expect-error create with a computed property (Core.Computed)
  od.from('Products').create({ ID: 2, Name: 'Mead', CreatedAt: '2020-01-01T00:00:00Z' });
  // @ts-expect-error update of an immutable property (Core.Immutable)
  od.from('Products').key(1).update({ Code: 'X' });
  // @ts-expect-error update of a key property
  od.from('Products').key(1).update({ ID: 3 });
  // @ts-expect-error a composite key needs every part
  od.from('OrderLines').key({ OrderID: 1 });
  // @ts-expect-error a stream property is not in the entity's JSON
  od.from('Products').select('Photo');
  // @ts-expect-error a bound action of another type
  od.from('Categories').key('c').action('Shop.Catalog.Discount', { Percent: 1 });
  // @ts-expect-error a collection-bound function is not bound to one entity
  od.from('Products').key(1).function('Shop.Catalog.Cheapest');
  // @ts-expect-error a required action parameter
  od.from('Products').key(1).action('Shop.Catalog.Discount', {});
  // @ts-expect-error enum member names only
  od.from('Products').filter((f) => f.eq('Size', 'XL'));
  // Write restrictions inline on the entity set and singleton (a qualified one and a dynamic Path restrict nothing).
  await od.from('Books').key('b').update({});
  await od.from('Categories').key('c').update({});
  // @ts-expect-error Books: Capabilities.InsertRestrictions/Insertable false
  void od.from('Books').create({});
  // @ts-expect-error Books: Capabilities.DeleteRestrictions/Deletable <Bool>false</Bool>
  void od.from('Books').key('b').delete();
  // Specs of derived types: Book extends Item's (adding an action), Ebook's is written in full (its own computed property).
  await od.from('Books').key('b').action('Shop.Catalog.Archive', {}).execute();
  await od.from('Books').key('b').action('Shop.Catalog.Lend', { Days: 7 }).execute();
  await od.from('Ebooks').key('e').action('Shop.Catalog.Lend', { Days: 7 }).execute();
  await od.from('Ebooks').create({ ItemID: '1', Isbn: null, Published: null });
  const ebook: number = (await od.from('Ebooks').key('e').get()).Downloads;
  void ebook;
  // @ts-expect-error Lend is bound to Book, not to Product
  void od.from('Products').key(1).action('Shop.Catalog.Lend', { Days: 7 });
  // @ts-expect-error Lend's Days is required (Book's actions map overrides Item's)
  void od.from('Books').key('b').action('Shop.Catalog.Lend', {});
  // @ts-expect-error Ebook.Downloads is Core.Computed
  void od.from('Ebooks').create({ ItemID: '1', Isbn: null, Published: null, Downloads: 1 });
  // @ts-expect-error the singleton Featured: Capabilities.UpdateRestrictions/Updatable false
  void od.singleton('Featured').update({});
}

export async function sales(): Promise<void> {
  const od = createODataClient<Sales>({ serviceURL: 'https://gw.example.com/sap/opu/odata/sap/ZSALES_SRV/', version: '2.0' });
  same<SalesOrder['OrderDate'], string | null>(true);
  same<SalesOrder['Quantity'], string | null>(true);
  const order = await od.from('A_SalesOrder').key('1').expand('to_Item').get();
  is(order.to_Item)<import('../generated/features-v2.js').SalesOrderItem[]>(true);
  await od.from('A_SalesOrder').create({ SalesOrder: '2', Released: false, Address: { City: 'Walldorf', PostalCode: null } });
  await od.from('A_SalesOrderItem').key({ SalesOrder: '1', SalesOrderItem: '10' }).get();
  const released = await od.action('ReleaseOrder', { SalesOrder: '1' }).execute();
  is(released.value)<ReleaseResult | null | undefined>(true);
  const open = await od.function('OpenOrders', { MaxAge: 7 }).execute();
  is(open)<SalesOrder[]>(true);

  // @ts-expect-error create with a computed property (sap:creatable="false")
  od.from('A_SalesOrder').create({ SalesOrder: '3', Released: true, Address: { City: null, PostalCode: null }, CreatedBy: 'ME' });
  // @ts-expect-error update of a property with sap:updatable="false"
  od.from('A_SalesOrder').key('1').update({ SalesOrder: '4' });
  // @ts-expect-error a function import called with POST is an action
  od.function('ReleaseOrder', { SalesOrder: '1' });
  // @ts-expect-error a required parameter of a function import
  od.function('OpenOrders', {});
  // @ts-expect-error wrong filter value type (Released is Edm.Boolean)
  od.from('A_SalesOrder').filter((f) => f.eq('Released', 'X'));
}

export function salesWithOptions(): void {
  const od = createODataClient<SalesWithDates>({ serviceURL: 'https://gw.example.com/sap/opu/odata/sap/ZSALES_SRV/', version: '2.0', dates: 'Date', largeNumbers: 'number' });
  same<SalesOrderWithDates['ChangedAt'], Date | null>(true);
  same<SalesOrderWithDates['OrderDate'], string | null>(true);
  same<SalesOrderWithDates['Quantity'], number | null>(true);
  od.from('A_SalesOrderItem').select('Material');
  // @ts-expect-error --only left this entity set out
  od.from('A_Partner');
}
