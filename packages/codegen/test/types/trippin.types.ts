// Type tests of the types generated from TripPin (test/generated/trippin.ts), compiled by `npm run typecheck`
// and by types.test.ts with exactOptionalPropertyTypes on and off: each `// @ts-expect-error` line must fail
// to compile (an unused one is itself an error), so these fail when the generated typing breaks.
import { createODataClient } from '@sluice/odata';
import type { Airport, Person, Service, Trip } from '../generated/trippin.js';

type Equal<A, B> = (<V>() => V extends A ? 1 : 2) extends (<V>() => V extends B ? 1 : 2) ? true : false;
const same = <A, B>(ok: Equal<A, B>): Equal<A, B> => ok;
const is = <A>(_value: A) => <B>(ok: Equal<A, B>): Equal<A, B> => ok;

export async function trippin(): Promise<void> {
  const od = createODataClient<Service>({ serviceURL: 'https://services.odata.org/V4/TripPinServiceRW/' });
  const people = await od.from('People').filter((f) => f.and(f.startswith('FirstName', 'S'), f.eq('Gender', 'Female'))).orderBy('LastName desc').list();
  is(people)<Person[]>(true);
  const names = await od.from('People').select('UserName', 'Age').list();
  is(names)<Pick<Person, 'UserName' | 'Age'>[]>(true);
  same<Person['Age'], string | null>(true);
  const withTrips = await od.from('People').key('russellwhyte').expand('Trips').get();
  is(withTrips.Trips)<Trip[]>(true);
  await od.from('Airports').key('KSFO').get();
  await od.from('People').key({ UserName: 'russellwhyte' }).nav('BestFriend').get();
  const nearest = await od.function('GetNearestAirport', { lat: 33, lon: -118 }).execute();
  is(nearest)<Airport | null>(true);
  await od.action('ResetDataSource').execute();
  await od.from('People').create({ UserName: 'newone', FirstName: 'New', Gender: 'Male' });
  await od.singleton('Me').get();

  // @ts-expect-error unknown entity set
  od.from('Person');
  // @ts-expect-error unknown property in select
  od.from('People').select('UserName', 'Surname');
  // @ts-expect-error unknown property in filter
  od.from('People').filter((f) => f.eq('Surname', 'x'));
  // @ts-expect-error unknown property in orderBy
  od.from('People').orderBy('Surname');
  // @ts-expect-error wrong key type (TripId is Edm.Int32)
  od.from('People').key('russellwhyte').navMany('Trips').key('1');
  // @ts-expect-error wrong value type in a filter (FirstName is Edm.String)
  od.from('People').filter((f) => f.eq('FirstName', 5));
  // @ts-expect-error enum values are the member names
  od.from('People').filter((f) => f.eq('Gender', 'Other'));
  // @ts-expect-error expand of a non-navigation property
  od.from('People').expand('HomeAddress');
  // @ts-expect-error string functions only on strings (Budget is Edm.Single)
  od.from('People').key('russellwhyte').navMany('Trips').filter((f) => f.contains('Budget', '1'));
  // @ts-expect-error unknown unbound function
  od.function('GetFarthestAirport');
  // @ts-expect-error wrong parameter type
  od.function('GetNearestAirport', { lat: '33', lon: -118 });
}
