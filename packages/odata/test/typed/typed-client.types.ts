// Type tests of the typed client, compiled by `npm run typecheck` and checked line by line by
// typed-client-types.test.ts: each `// @ts-expect-error <text>` line must fail to compile with a message
// containing <text>, and every other line must compile.
import {
  createODataClient, DeltaSync, partitionQuery, planPartitions,
  type BatchOperation, type DeltaStore, type EntityQuery, type HasUntyped, type ODataClient, type Query, type TypedODataClient, type TypedQuery,
} from '@sluice/odata';
import { decimal } from '@sluice/odata';
import type { EmptyMap } from '@sluice/odata';
import type { Category, DemoService, Product, ProductSpec } from './demo-spec.js';

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
function expectType<A>(_value: A): <B>(ok: Equal<A, B>) => void {
  return () => undefined;
}

export async function typedReads(od: TypedODataClient<DemoService>): Promise<void> {
  // @ts-expect-error "Product"
  od.from('Product');
  // Rows are the entity as read; select narrows them, expand adds the navigation typed by its target.
  const all = await od.from('Products').list();
  expectType(all)<Product[]>(true);
  const some = await od.from('Products').select('ID', 'Name').list();
  expectType(some)<Pick<Product, 'ID' | 'Name'>[]>(true);
  const withCategory = await od.from('Products').select('Name').expand('Category').list();
  expectType(withCategory[0]!.Category)<Category | null>(true);
  const withNames = await od.from('Categories').expand('Products', { select: ['Name'], filter: (f) => f.gt('Price', 10), top: 2 }).list();
  expectType(withNames[0]!.Products)<Pick<Product, 'Name'>[]>(true);
  // @ts-expect-error "Colour"
  od.from('Products').select('ID', 'Colour');
  // @ts-expect-error "Name"
  od.from('Products').expand('Name');
  // @ts-expect-error "Weight"
  od.from('Categories').expand('Products', { select: ['Price', 'Weight'] });
  // @ts-expect-error "Price up"
  od.from('Products').orderBy('Name', 'Price up');
  od.from('Products').orderBy('Name', 'Price desc', 'ID asc');
  // @ts-expect-error "Colour"
  od.from('Products').orderBy('Colour');

  // Filters: names, value types, functions by EDM type.
  od.from('Products').filter((f) => f.and(f.gt('Price', 10), f.eq('Name', 'Ale'), f.contains('Name', 'A'), f.eq('Description', null)));
  od.from('Products').filter((f) => f.or(f.gt('Price', decimal('1.50')), f.ge('ReleaseDate', new Date(0)), f.eq(f.year('ReleaseDate'), 2020)));
  od.from('Products').filter((f) => f.in('ID', [1, 2, 3]));
  od.from('Categories').filter((f) => f.any('Products', 'p', (p) => p.lt('Price', 5)));
  // @ts-expect-error "Colour"
  od.from('Products').filter((f) => f.eq('Colour', 'red'));
  // Through a to-one navigation, one level: names and values of the target.
  od.from('Products').filter((f) => f.and(f.eq('Category/Name', 'Beverages'), f.isNotNull('Category/ID'))).orderBy('Category/Name desc', 'ID');
  // @ts-expect-error "Argument of type '5'"
  od.from('Products').filter((f) => f.eq('Category/Name', 5));
  // @ts-expect-error "Category/Colour"
  od.from('Products').filter((f) => f.eq('Category/Colour', 'x'));
  // @ts-expect-error "Products/Name"
  od.from('Categories').filter((f) => f.eq('Products/Name', 'x'));
  // @ts-expect-error "Category/Colour"
  od.from('Products').orderBy('Category/Colour');
  // @ts-expect-error "number"
  od.from('Products').filter((f) => f.eq('Name', 5));
  // @ts-expect-error "string"
  od.from('Products').filter((f) => f.eq('Active', 'yes'));
  // @ts-expect-error "null"
  od.from('Products').filter((f) => f.eq('Name', null));
  // @ts-expect-error "Price"
  od.from('Products').filter((f) => f.contains('Price', '1'));
  // @ts-expect-error "Name"
  od.from('Products').filter((f) => f.year('Name'));
  // @ts-expect-error "Name"
  od.from('Products').filter((f) => f.add('Name', 1));
  // @ts-expect-error "Category"
  od.from('Products').filter((f) => f.any('Category', 'c'));
  // @ts-expect-error "Weight"
  od.from('Categories').filter((f) => f.any('Products', 'p', (p) => p.lt('Weight', 5)));

  // Keys: the key's type; an object of the key properties for a composite key.
  const product = await od.from('Products').key(1).get();
  expectType(product)<Product>(true);
  await od.from('OrderItems').key({ OrderID: 1, ItemNo: 'A' }).get();
  // @ts-expect-error "string"
  od.from('Products').key('1');
  // @ts-expect-error "ItemNo"
  od.from('OrderItems').key({ OrderID: 1 });
  // @ts-expect-error "number"
  od.from('OrderItems').key(1);

  // Navigation: to-one gives an entity, to-many a collection query, each typed by its target.
  const category = await od.from('Products').key(1).nav('Category').get();
  expectType(category)<Category>(true);
  const products = await od.from('Categories').key(1).navMany('Products').select('Price').list();
  expectType(products)<Pick<Product, 'Price'>[]>(true);
  // @ts-expect-error "Category"
  od.from('Products').key(1).navMany('Category');
  // @ts-expect-error "Products"
  od.from('Categories').key(1).nav('Products');
  // @ts-expect-error "Name"
  od.from('Products').key(1).nav('Name');

  // Singletons.
  const top = await od.singleton('TopCategory').select('Name').get();
  expectType(top)<Pick<Category, 'Name'>>(true);
  // @ts-expect-error "Me"
  od.singleton('Me');
}

export async function typedWrites(od: TypedODataClient<DemoService>): Promise<void> {
  await od.from('Products').create({ ID: 99, Name: 'New', Price: '1.00', Category: { ID: 1, Name: 'x' } });
  // @ts-expect-error "ReleaseDate"
  await od.from('Products').create({ Name: 'New', ReleaseDate: '2020-01-01T00:00:00Z' });
  // @ts-expect-error "number"
  await od.from('Products').create({ Name: 7 });
  await od.from('Products').key(1).update({ Name: 'Renamed', Description: null });
  // @ts-expect-error "ID"
  await od.from('Products').key(1).update({ ID: 2 });
  // @ts-expect-error "Guid"
  await od.from('Products').key(1).update({ Guid: '0f8fad5b-d9cb-469f-a165-70867728950e' });
  const created = await od.from('Categories').create({ ID: 9, Name: 'Nine' });
  expectType(created.value)<Category | undefined>(true);
}

export async function typedOperations(od: TypedODataClient<DemoService>): Promise<void> {
  const reset = await od.action('ResetData').execute();
  expectType(reset.value)<void | undefined>(true);
  const count = await od.function('CountProducts', { MinPrice: '10' }).execute();
  expectType(count)<string>(true);
  await od.function('CountProducts').execute();
  // @ts-expect-error "MaxPrice"
  od.function('CountProducts', { MaxPrice: '10' });
  // @ts-expect-error "Reset"
  od.action('Reset');
  const discounted = await od.from('Products').key(1).action('Demo.Discount', { Percent: 10 }).execute();
  expectType(discounted.value)<Product | undefined>(true);
  // @ts-expect-error "Expected 2 arguments"
  od.from('Products').key(1).action('Demo.Discount');
  // @ts-expect-error "string"
  od.from('Products').key(1).action('Demo.Discount', { Percent: '10' });
  const most = await od.from('Products').function('Demo.MostExpensive').execute();
  expectType(most)<Product>(true);
  // @ts-expect-error "Demo.MostExpensive"
  od.from('Products').key(1).function('Demo.MostExpensive');
}

export function untypedViews(od: TypedODataClient<DemoService>): void {
  const q = od.from('Products').select('Name').untyped;
  expectType(q)<Query<Pick<Product, 'Name'>>>(true);
  const e = od.from('Products').key(1).expand('Category').untyped;
  expectType(e)<EntityQuery<Product & { Category: Category | null }>>(true);
}

export function untypedStaysAsItWas(options: { serviceURL: string }): ODataClient {
  const od = createODataClient(options);
  od.from<Product>('Products').select('ID', 'Whatever/Path').filter((f) => f.eq('Anything', 1)).orderBy('x desc');
  od.from('Anything').key({ A: 1 }).nav('B').navMany('C');
  const typed = createODataClient<DemoService>(options);
  expectType(typed.untyped)<ODataClient>(true);
  return od;
}

function takesClient(od: ODataClient): string {
  return od.serviceURL;
}

export async function typedWhereUntypedIsTaken(od: TypedODataClient<DemoService>, store: DeltaStore): Promise<void> {
  // sluice's APIs that take a client or a query take typed ones as they are (HasUntyped), keeping row types.
  const sync = new DeltaSync(od, od.from('Products').select('Name'), { store });
  expectType(sync)<DeltaSync<Pick<Product, 'Name'>>>(true);
  const base = od.from('Products').select('ID');
  const plan = await planPartitions(base, { partitions: 2 });
  expectType(partitionQuery(base, plan.partitions[0]!))<TypedQuery<ProductSpec, 'ID'>>(true);
  const batch = od.batch();
  expectType(batch.get(od.from('Products').select('Name')))<BatchOperation<Pick<Product, 'Name'>[]>>(true);
  expectType(batch.get(od.from('Products').key(1).expand('Category')))<BatchOperation<Product & { Category: Category | null }>>(true);
  batch.changeset((cs) => cs.update(od.from('Products').key(1), { Name: 'x' }));
  const view: HasUntyped<ODataClient> = od;
  takesClient(view.untyped);
  // A typed client is no ODataClient to the compiler (from() refuses unknown names; select() changes the row type).
  // @ts-expect-error "ODataClient"
  takesClient(od);
}

// A service whose to-one navigation goes deeper than the demo's: City -> Country -> Region (and back).
interface Ops { actions: EmptyMap; functions: EmptyMap; collectionActions: EmptyMap; collectionFunctions: EmptyMap }
interface RegionSpec extends Ops {
  props: { Code: string; Name: string }; key: { Code: string }; edm: { Code: 'Edm.String'; Name: 'Edm.String' };
  nav: { Countries: { target: CountrySpec; many: true } }; computed: never; immutable: 'Code';
}
interface CountrySpec extends Ops {
  props: { Code: string; Population: string | null; Founded: string }; key: { Code: string };
  edm: { Code: 'Edm.String'; Population: 'Edm.Int64'; Founded: 'Edm.Date' };
  nav: { Region: { target: RegionSpec; many: false }; Capital: { target: CitySpec; many: false } }; computed: never; immutable: 'Code';
}
interface CitySpec extends Ops {
  props: { ID: number; Name: string }; key: { ID: number }; edm: { ID: 'Edm.Int32'; Name: 'Edm.String' };
  nav: { Country: { target: CountrySpec; many: false }; Streets: { target: StreetSpec; many: true } }; computed: never; immutable: 'ID';
}
interface StreetSpec extends Ops {
  props: { ID: number; Length: number }; key: { ID: number }; edm: { ID: 'Edm.Int32'; Length: 'Edm.Double' };
  nav: { City: { target: CitySpec; many: false } }; computed: never; immutable: 'ID';
}
interface Geo { entitySets: { Cities: CitySpec; Streets: StreetSpec }; singletons: EmptyMap; actions: EmptyMap; functions: EmptyMap }

export function deepPaths(od: TypedODataClient<Geo>): void {
  // Up to three to-one hops, in comparisons, null checks, functions by EDM type and orderBy; values typed by the last property.
  od.from('Cities').filter((f) => f.and(f.eq('Country/Region/Name', 'Europe'), f.gt('Country/Population', '1000'), f.eq('Country/Region/Name', null)));
  od.from('Cities').filter((f) => f.and(f.contains('Country/Region/Name', 'Eu'), f.eq(f.year('Country/Founded'), 1990), f.isNull('Country/Capital/Name')));
  od.from('Streets').filter((f) => f.eq('City/Country/Capital/Name', 'Paris')).orderBy('City/Country/Region/Name desc', 'Length');
  od.from('Cities').filter((f) => f.in('Country/Capital/ID', [1, 2]));
  // @ts-expect-error "Country/Region/Nome"
  od.from('Cities').filter((f) => f.eq('Country/Region/Nome', 'x'));
  // @ts-expect-error "City/Country/Capital/Country/Code"
  od.from('Streets').filter((f) => f.eq('City/Country/Capital/Country/Code', 'x'));
  // @ts-expect-error "Argument of type 'true'"
  od.from('Cities').filter((f) => f.gt('Country/Population', true));
  // @ts-expect-error "Country/Population"
  od.from('Cities').filter((f) => f.contains('Country/Population', '1'));
  // @ts-expect-error "Country/Region/Name"
  od.from('Cities').filter((f) => f.year('Country/Region/Name'));
  // @ts-expect-error "Streets/Length"
  od.from('Cities').filter((f) => f.eq('Streets/Length', 1));
  // @ts-expect-error "Country/Region/Name up"
  od.from('Cities').orderBy('Country/Region/Name up');
  // @ts-expect-error "Country/Code/Name"
  od.from('Cities').orderBy('Country/Code/Name');
  // any/all over a to-many navigation reached through to-one ones; predicates typed by the target, lambdas nested.
  od.from('Streets').filter((f) => f.any('City/Country/Region/Countries', 'c', (c) => c.and(c.gt('Population', '5'), c.eq('Capital/Name', 'Rome'))));
  od.from('Cities').filter((f) => f.all('Country/Region/Countries', 'c', (c) => c.any('Capital/Streets', 's', (s) => s.lt('Length', 2.5))));
  od.from('Cities').filter((f) => f.any('Streets', 's', (s) => s.eq('City/Country/Code', 'DE')));
  // @ts-expect-error "Country/Capital"
  od.from('Cities').filter((f) => f.any('Country/Capital', 'x'));
  // @ts-expect-error "Name"
  od.from('Cities').filter((f) => f.any('Country/Region/Countries', 'c', (c) => c.eq('Name', 'x')));
}

export async function nestedExpand(od: TypedODataClient<Geo>, demo: TypedODataClient<DemoService>): Promise<void> {
  type City = CitySpec['props']; type Country = CountrySpec['props']; type Region = RegionSpec['props']; type Street = StreetSpec['props'];
  // expand adds the navigation property: to-one as the entity or null, to-many as an array; nested select narrows it,
  // nested expand (names, or names with options) adds to it in turn.
  const cities = await od.from('Cities').select('Name').expand('Country', { select: ['Code'], expand: ['Region'] }).list();
  expectType(cities[0]!)<Pick<City, 'Name'> & { Country: (Pick<Country, 'Code'> & { Region: Region | null }) | null }>(true);
  const streets = await od.from('Cities').key(1).expand('Streets', { filter: (f) => f.gt('Length', 1), expand: { City: { select: ['Name'], expand: { Country: true } } } }).get();
  expectType(streets.Streets)<(Street & { City: (Pick<City, 'Name'> & { Country: Country | null }) | null })[]>(true);
  const both = await od.from('Cities').expand('Country', { select: ['Code'] }).expand('Streets', { select: ['Length'], top: 3 }).list();
  expectType(both[0]!.Streets)<Pick<Street, 'Length'>[]>(true);
  expectType(both[0]!.Country)<Pick<Country, 'Code'> | null>(true);
  const deep = await od.from('Streets').expand('City', { expand: { Country: { expand: { Region: { expand: { Countries: { select: ['Code'], expand: ['Capital'] } } } } } } }).list();
  // Three levels of options below expand() shape the type (Country, Region, Countries); a fourth (Capital) is read but not typed.
  expectType(deep[0]!.City!.Country!.Region!.Countries)<Pick<Country, 'Code'>[]>(true);
  const categories = await demo.from('Categories').expand('Products', { select: ['Name'], expand: ['Category'] }).list();
  expectType(categories[0]!.Products[0]!.Category)<Category | null>(true);
  // @ts-expect-error "Colour"
  od.from('Cities').expand('Country', { select: ['Colour'] });
  // @ts-expect-error "Code"
  od.from('Cities').expand('Country', { expand: ['Code'] });
  // @ts-expect-error "Streets"
  od.from('Cities').expand('Country', { expand: { Streets: true } });
  // @ts-expect-error "Nome"
  od.from('Cities').expand('Country', { expand: { Region: { select: ['Nome'] } } });
  // @ts-expect-error "Weight"
  od.from('Cities').expand('Streets', { filter: (f) => f.gt('Weight', 1) });
  // Paths of navigation properties (v2's $expand=A/B): every step is added.
  const pathed = await od.from('Streets').expand('City/Country/Region').expand('City/Streets').list();
  expectType(pathed[0]!.City!.Country!.Region)<Region | null>(true);
  expectType(pathed[0]!.City!.Streets)<Street[]>(true);
  const one = await od.from('Cities').key(1).expand('Streets/City').get();
  expectType(one.Streets[0]!.City)<City | null>(true);
  // @ts-expect-error "Country/Name"
  od.from('Cities').expand('Country/Name');
  // @ts-expect-error "City/Country/Capital/Country/Region"
  od.from('Streets').expand('City/Country/Capital/Country/Region');
}
